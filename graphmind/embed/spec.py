"""What identifies an embedder in the graph: its provider, model name and dimension."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from graphmind.core.errors import ConfigError

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

PROVIDERS = ("onnx", "sentence-transformers", "openai", "hash")
DEFAULT_PROVIDER = "onnx"
# Providers that run the same local model files with the same pooling: their vectors
# agree to within float rounding, so a store built with one opens with the other.
LOCAL_PROVIDERS = frozenset({"onnx", "sentence-transformers"})
DEFAULT_HASH_DIMENSION = 384
_DIMENSION_KEYS = {
    "Pooling": ("word_embedding_dimension", "embedding_dimension"),
    "Dense": ("out_features",),
}
_HASH_MODEL = re.compile(r"(?:hash-?)?(\d+)", re.IGNORECASE)


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
    """Parse ``[provider:]model`` (provider defaults to ``onnx``; ``st`` is short for
    ``sentence-transformers``).

    ``hash``, ``hash:384`` and ``hash:hash-384`` name the hashed test embedder
    (model ``hash-384``; 384 dimensions unless given).
    """
    text = value.strip()
    provider, sep, model = text.partition(":")
    if not sep:
        provider, model = DEFAULT_PROVIDER, text
        if text.lower() == "hash":
            provider, model = "hash", ""
    provider = {"st": "sentence-transformers"}.get(provider, provider)
    if provider not in PROVIDERS:
        raise ConfigError(
            f"unknown embedder provider {provider!r} in {value!r}; "
            f"use one of {', '.join(PROVIDERS)} (e.g. 'onnx:all-MiniLM-L6-v2')"
        )
    if provider == "hash":
        return _parse_hash(value, model.strip(), dimension)
    if not model:
        raise ConfigError(f"embedder {value!r} names no model")
    short = model.rstrip("/\\").rsplit("/", 1)[-1].lower()
    dim = dimension or KNOWN_DIMENSIONS.get(short)
    if dim is None and provider in LOCAL_PROVIDERS:
        # a model that is not there at all is the problem to name, not its dimension
        from graphmind.embed.local_models import resolve_model_path

        dim = local_model_dimension(resolve_model_path(model))
        if dim is None:
            raise ConfigError(
                f"the dimension of embedder {model!r} is not in its sentence-transformers "
                "configuration (modules.json with a Pooling or Dense module); "
                "set GRAPHMIND_EMBEDDING_DIM to it"
            )
    if dim is None:
        raise ConfigError(
            f"the dimension of the endpoint's embedding model {model!r} is not known to "
            "GraphMind: set GRAPHMIND_EMBEDDING_DIM to it (e.g. 1536)"
        )
    if dim <= 0:
        raise ConfigError(f"embedding dimension must be positive, got {dim}")
    return EmbedderSpec(provider=provider, model=model, dimension=dim)


def same_vectors(stored_name: str, spec: EmbedderSpec) -> bool:
    """Whether a store recorded as built with ``stored_name`` holds ``spec``'s vectors:
    the same name, or the same local model under the other local provider."""
    if stored_name == spec.name:
        return True
    provider, _, model = stored_name.partition(":")
    return {provider, spec.provider} <= LOCAL_PROVIDERS and model == spec.model


def _parse_hash(value: str, model: str, dimension: int | None) -> EmbedderSpec:
    if model:
        match = _HASH_MODEL.fullmatch(model)
        if match is None:
            raise ConfigError(
                f"hashed embedder {value!r}: give its dimension as 'hash:384' or 'hash:hash-384'"
            )
        dim = int(match.group(1))
        if dimension is not None and dimension != dim:
            raise ConfigError(
                f"embedder {value!r} has dimension {dim} but GRAPHMIND_EMBEDDING_DIM is {dimension}"
            )
    else:
        dim = dimension or DEFAULT_HASH_DIMENSION
    if dim <= 0:
        raise ConfigError(f"embedding dimension must be positive, got {dim}")
    return EmbedderSpec(provider="hash", model=f"hash-{dim}", dimension=dim)


def local_model_dimension(path: Path) -> int | None:
    """The output dimension of a sentence-transformers model directory, read from its
    module configs (the last Pooling or Dense module decides); None when unknown."""
    try:
        modules = json.loads((path / "modules.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    dim: int | None = None
    for module in modules if isinstance(modules, list) else []:
        kind = str(module.get("type", "")) if isinstance(module, dict) else ""
        keys = _DIMENSION_KEYS.get(kind.rsplit(".", 1)[-1])
        if keys is None:
            continue
        try:
            config = json.loads(
                (path / str(module.get("path", "")) / "config.json").read_text(encoding="utf-8")
            )
        except (OSError, ValueError):
            continue
        for key in keys if isinstance(config, dict) else ():
            value = config.get(key)
            if isinstance(value, int) and value > 0:
                dim = value
                break
    return dim
