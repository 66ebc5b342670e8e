"""What identifies an embedder in the graph: its provider, model name and dimension."""

from __future__ import annotations

from dataclasses import dataclass

from graphmind.errors import ConfigError

# Dimensions of common models, so opening a store needs no model download.
KNOWN_DIMENSIONS: dict[str, int] = {
    "all-minilm-l6-v2": 384,
    "all-minilm-l12-v2": 384,
    "all-mpnet-base-v2": 768,
    "multi-qa-minilm-l6-cos-v1": 384,
    "bge-small-en-v1.5": 384,
    "bge-base-en-v1.5": 768,
    "bge-large-en-v1.5": 1024,
    "nomic-embed-text": 768,
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}

PROVIDERS = ("sentence-transformers", "openai")


@dataclass(frozen=True)
class EmbedderSpec:
    """An embedding model as recorded in the store's meta node."""

    provider: str
    model: str
    dimension: int

    @property
    def name(self) -> str:
        """The name stored in the graph, e.g. ``sentence-transformers:all-MiniLM-L6-v2``."""
        return f"{self.provider}:{self.model}"


def parse_embedder(value: str, dimension: int | None = None) -> EmbedderSpec:
    """Parse ``[provider:]model`` (provider defaults to sentence-transformers)."""
    text = value.strip()
    provider, sep, model = text.partition(":")
    if not sep:
        provider, model = "sentence-transformers", text
    provider = {"st": "sentence-transformers"}.get(provider, provider)
    if provider not in PROVIDERS:
        raise ConfigError(
            f"unknown embedder provider {provider!r} in {value!r}; "
            f"use one of {', '.join(PROVIDERS)} (e.g. 'sentence-transformers:all-MiniLM-L6-v2')"
        )
    if not model:
        raise ConfigError(f"embedder {value!r} names no model")
    short = model.rsplit("/", 1)[-1].lower()
    dim = dimension or KNOWN_DIMENSIONS.get(short)
    if dim is None:
        raise ConfigError(
            f"the dimension of embedder {model!r} is not known; set GRAPHMIND_EMBEDDING_DIM"
        )
    if dim <= 0:
        raise ConfigError(f"embedding dimension must be positive, got {dim}")
    return EmbedderSpec(provider=provider, model=model, dimension=dim)
