"""Leiden communities, their reports, PageRank and conversation episodes."""
