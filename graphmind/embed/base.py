"""The embedder interface and what every provider shares: batching, L2 normalisation,
the dimension check and a running count of texts and seconds."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from graphmind.core.errors import BadInputError, ConfigError, GraphMindError
from graphmind.embed.spec import EmbedderSpec


class EmbeddingError(GraphMindError):
    """An embedding provider failed (after its retries) or answered something unusable."""


@dataclass
class EmbedStats:
    """Texts embedded and seconds spent so far (model loading counted apart)."""

    texts: int = 0
    batches: int = 0
    seconds: float = 0.0
    load_seconds: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, texts: int, batches: int, seconds: float) -> None:
        """Count one ``embed`` call."""
        with self._lock:
            self.texts += texts
            self.batches += batches
            self.seconds += seconds

    @property
    def texts_per_second(self) -> float:
        """Throughput so far; 0 before anything was embedded."""
        return self.texts / self.seconds if self.seconds > 0 else 0.0

    def summary(self) -> str:
        """One line for the build summary, e.g. ``2000 texts in 41.2 s (48.5/s)``."""
        text = f"{self.texts} texts in {self.seconds:.1f} s ({self.texts_per_second:.1f}/s)"
        return text + (f", model load {self.load_seconds:.1f} s" if self.load_seconds else "")


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length vectors of ``spec.dimension`` floats."""

    @property
    def spec(self) -> EmbedderSpec:
        """Provider, model and dimension, as recorded in the store."""
        ...

    @property
    def stats(self) -> EmbedStats:
        """Texts embedded and seconds spent by this embedder."""
        ...

    @property
    def max_tokens(self) -> int | None:
        """Tokens the model reads per text (longer texts are truncated); None if unbounded
        or unknown. May load the model."""
        ...

    def load(self) -> None:
        """Get ready to embed (load the model); ``embed`` does it on first use."""
        ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One L2-normalised vector per text, in input order; ``[]`` for no texts."""
        ...


@runtime_checkable
class SpanEmbedder(Protocol):
    """An embedder that can also read a vector for parts of a text from the same pass
    (the ONNX encoder's token states): ``embed_spans(texts, spans)`` returns each text's
    vector and, per ``(start, end)`` character span of it, a unit vector or None."""

    def embed_spans(
        self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]
    ) -> tuple[list[list[float]], list[list[list[float] | None]]]:
        """The texts' vectors and their spans' vectors (None where a span has no token)."""
        ...


class BatchedEmbedder:
    """Base for providers: subclasses implement ``_embed_batch`` on at most ``batch_size``
    texts; ``embed`` batches, normalises, checks the dimension and counts."""

    normalizes = False
    """True when ``_embed_batch`` already returns unit vectors."""

    def __init__(self, spec: EmbedderSpec, *, batch_size: int = 64) -> None:
        if batch_size <= 0:
            raise BadInputError(f"embedding batch size must be positive, got {batch_size}")
        self._spec = spec
        self._stats = EmbedStats()
        self.batch_size = batch_size

    @property
    def spec(self) -> EmbedderSpec:
        """Provider, model and dimension, as recorded in the store."""
        return self._spec

    @property
    def stats(self) -> EmbedStats:
        """Texts embedded and seconds spent by this embedder."""
        return self._stats

    @property
    def max_tokens(self) -> int | None:
        """Tokens the model reads per text; None if unbounded or unknown."""
        return None

    def load(self) -> None:
        """Get ready to embed (load the model); ``embed`` does it on first use."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One L2-normalised vector per text, in input order; ``[]`` for no texts."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not one string")
        if not texts:
            return []
        self.load()
        started = time.perf_counter()
        out, batches = self._embed_all(list(texts))
        if len(out) != len(texts):
            raise EmbeddingError(
                f"embedder {self.spec.name} returned {len(out)} vectors for {len(texts)} texts"
            )
        if self.normalizes:
            vectors = [check_dimension(self.spec, v) for v in out]
        else:
            vectors = [normalize(check_dimension(self.spec, v)) for v in out]
        self._stats.add(len(texts), batches, time.perf_counter() - started)
        return vectors

    def _embed_all(self, texts: list[str]) -> tuple[list[list[float]], int]:
        """Vectors for all texts and the number of batches it took."""
        vectors: list[list[float]] = []
        batches = 0
        for batch in batched(texts, self.batch_size):
            out = self._embed_batch(batch)
            if len(out) != len(batch):
                raise EmbeddingError(
                    f"embedder {self.spec.name} returned {len(out)} vectors for {len(batch)} texts"
                )
            vectors.extend(out)
            batches += 1
        return vectors, batches

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        """Vectors for at most ``batch_size`` texts."""
        raise NotImplementedError


def batched(texts: Sequence[str], size: int) -> Iterator[list[str]]:
    """Consecutive lists of at most ``size`` texts."""
    for start in range(0, len(texts), size):
        yield list(texts[start : start + size])


def normalize(vector: list[float]) -> list[float]:
    """The vector scaled to unit L2 length (an all-zero vector is returned unchanged)."""
    norm = math.sqrt(math.fsum(x * x for x in vector))
    if not math.isfinite(norm):
        raise EmbeddingError("the embedder returned a vector with NaN or infinite values")
    if norm == 0.0:
        return vector
    return [x / norm for x in vector]


def unit_mean(
    vectors: Sequence[Sequence[float]], weights: Sequence[float] | None = None
) -> list[float] | None:
    """The (weighted) mean of ``vectors`` scaled to unit length: what several vectors say
    together; None for no vectors or a zero or non-finite mean."""
    import numpy as np

    if not vectors:
        return None
    rows = np.asarray(vectors, dtype=np.float64)
    mean = np.average(rows, axis=0, weights=weights)
    norm = float(np.linalg.norm(mean))
    if not np.isfinite(norm) or norm == 0.0:
        return None
    result: list[float] = (mean / norm).tolist()
    return result


def check_dimension(spec: EmbedderSpec, vector: Sequence[float]) -> list[float]:
    """``vector`` as a list, or a ConfigError naming both dimensions when it has the wrong size."""
    if len(vector) != spec.dimension:
        raise dimension_mismatch(spec, len(vector))
    return list(vector)


def dimension_mismatch(spec: EmbedderSpec, actual: int) -> ConfigError:
    """The error for a model whose vectors are not ``spec.dimension`` long."""
    return ConfigError(
        f"embedder {spec.name} produces {actual}-dimensional vectors but the configured "
        f"dimension is {spec.dimension}; set GRAPHMIND_EMBEDDING_DIM={actual} "
        "(a store built with another dimension needs a rebuild)"
    )
