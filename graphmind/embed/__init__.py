"""Embedding providers. The spec (model name and dimension) is all the store needs."""

from graphmind.embed.spec import EmbedderSpec, parse_embedder

__all__ = ["EmbedderSpec", "parse_embedder"]
