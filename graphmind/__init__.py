"""GraphMind: a graph-database-native knowledge engine."""

__version__ = "0.1.0"
