"""``graphmind build``: documents -> chunks -> triplets -> entities -> embeddings."""
