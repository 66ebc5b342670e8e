"""Local sentence-transformers models (the optional ``st`` extra: torch), read from disk
only, never downloaded (see ``graphmind.embed.local_models`` for where models come from).

torch and sentence-transformers are imported on first use, not with this module.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from graphmind.core.errors import ConfigError, EmbedderError
from graphmind.embed.base import BatchedEmbedder, EmbeddingError, dimension_mismatch
from graphmind.embed.local_models import offline, resolve_model_path
from graphmind.embed.spec import EmbedderSpec

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer


@contextmanager
def _no_progress_bars() -> Iterator[None]:
    """Silence the weight-loading progress bar of transformers."""
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:
        yield
        return
    enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    try:
        yield
    finally:
        if enabled:
            hf_logging.enable_progress_bar()  # type: ignore[no-untyped-call]


class SentenceTransformerEmbedder(BatchedEmbedder):
    """A sentence-transformers model on ``device`` (CPU by default), loaded once on first use.

    Texts longer than ``max_tokens`` word pieces (256 for all-MiniLM-L6-v2) are truncated
    by the model.
    """

    normalizes = True

    def __init__(self, spec: EmbedderSpec, *, device: str = "cpu", batch_size: int = 64) -> None:
        super().__init__(spec, batch_size=batch_size)
        self.device = device
        self.model_path = resolve_model_path(spec.model)
        self._model: SentenceTransformer | None = None
        self._lock = threading.Lock()

    def load(self) -> None:
        """Load the model now (once), offline, and check its dimension."""
        self._load()

    def _load(self) -> SentenceTransformer:
        if self._model is not None:
            return self._model
        with self._lock:
            if self._model is None:
                started = time.perf_counter()
                self._model = self._open()
                self.stats.load_seconds = time.perf_counter() - started
        return self._model

    def _open(self) -> SentenceTransformer:
        with offline():
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise ConfigError(
                    f"embedder {self.spec.name} needs sentence-transformers (and torch): "
                    f"pip install 'graphmind[st]', or use the default onnx provider ({exc})"
                ) from exc
            try:
                with _no_progress_bars():
                    model = SentenceTransformer(
                        str(self.model_path), device=self.device, local_files_only=True
                    )
            except Exception as exc:
                raise EmbedderError(
                    f"cannot load embedding model {self.spec.model} from {self.model_path} "
                    f"on device {self.device!r}: {type(exc).__name__}: {exc}"
                ) from exc
        getter = getattr(model, "get_embedding_dimension", None) or getattr(
            model, "get_sentence_embedding_dimension", None
        )
        actual = getter() if callable(getter) else None
        if isinstance(actual, int) and actual != self.spec.dimension:
            raise dimension_mismatch(self.spec, actual)
        return model

    @property
    def max_tokens(self) -> int | None:
        """Word pieces the model reads per text (loads the model); longer texts are truncated."""
        length = self._load().max_seq_length
        return int(length) if length else None

    def _embed_all(self, texts: list[str]) -> tuple[list[list[float]], int]:
        # One encode call: sentence-transformers sorts by length across all texts, which
        # wastes less padding than encoding our own batches one by one.
        import numpy as np

        model = self._load()
        out = model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        if not isinstance(out, np.ndarray) or out.ndim != 2:
            raise EmbeddingError(f"embedder {self.spec.name} returned no vector matrix")
        vectors: list[list[float]] = out.tolist()
        return vectors, -(-len(texts) // self.batch_size)
