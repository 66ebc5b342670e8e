"""Triplet and entity extraction, shared by ``build`` and the ask loop's evolving sub-graph."""
