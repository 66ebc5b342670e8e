"""The bottom layer: ids and digests, the progress protocol, shared models, error classes.

Nothing here imports another GraphMind package.
"""
