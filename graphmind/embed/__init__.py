"""Embedding providers. The spec (model name and dimension) is all the store needs.

Importing this package is cheap: a provider's libraries (onnxruntime, torch,
sentence-transformers, openai) are imported when ``graphmind.factories.make_embedder`` builds it.
"""

from __future__ import annotations

from graphmind.embed.base import Embedder, EmbeddingError, EmbedStats
from graphmind.embed.spec import EmbedderSpec, parse_embedder

__all__ = [
    "EmbedStats",
    "Embedder",
    "EmbedderSpec",
    "EmbeddingError",
    "parse_embedder",
]
