"""Embedding providers. The spec (model name and dimension) is all the store needs.

Importing this package is cheap: a provider's libraries (onnxruntime, torch,
sentence-transformers, openai) are imported when ``make_embedder`` builds it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphmind.embed.base import Embedder, EmbeddingError, EmbedStats
from graphmind.embed.spec import EmbedderSpec, parse_embedder

if TYPE_CHECKING:
    from graphmind.config import Settings

__all__ = [
    "EmbedStats",
    "Embedder",
    "EmbedderSpec",
    "EmbeddingError",
    "make_embedder",
    "parse_embedder",
]


def make_embedder(settings: Settings) -> Embedder:
    """The embedder the settings name (``GRAPHMIND_EMBEDDER``); models load on first use."""
    spec = settings.embedder_spec()
    if spec.provider == "hash":
        from graphmind.embed.hashing import HashingEmbedder

        return HashingEmbedder(spec, batch_size=settings.embed_batch_size)
    if spec.provider == "openai":
        from graphmind.embed.openai_provider import OpenAIEmbedder

        key = settings.embedder_api_key
        return OpenAIEmbedder(
            spec,
            base_url=settings.embedder_base_url,
            api_key=key.get_secret_value() if key is not None else None,
            batch_size=settings.embed_batch_size,
        )
    if spec.provider == "onnx":
        from graphmind.embed.onnx_provider import OnnxEmbedder

        return OnnxEmbedder(spec, batch_size=settings.embed_batch_size)
    if spec.provider == "sentence-transformers":
        from graphmind.embed.sentence_transformers_provider import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(
            spec, device=settings.embed_device, batch_size=settings.embed_batch_size
        )
    raise AssertionError(f"unhandled embedder provider {spec.provider!r}")
