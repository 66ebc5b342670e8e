"""The default embedder: a local BERT sentence encoder run by ONNX Runtime (no torch).

The model comes from the same places as for sentence-transformers (the bundled
all-MiniLM-L6-v2 package, a model directory, the Hugging Face cache; never downloaded):
a directory with ``config.json``, ``model.safetensors`` and ``tokenizer.json``. Its
weights are turned into an ONNX graph in memory (``graphmind.embed.bert_onnx``) and the
``tokenizers`` library reads its tokenizer. Pooling (mean or CLS) and the maximum
sequence length come from the sentence-transformers configs in the directory, so the
vectors are those sentence-transformers computes for the same model, within float
rounding, and stores built with either provider are interchangeable.

onnxruntime, onnx, numpy and tokenizers are imported on first use, not with this module.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphmind.core.errors import ConfigError, EmbedderError
from graphmind.embed.base import BatchedEmbedder, EmbeddingError, dimension_mismatch
from graphmind.embed.local_models import resolve_model_path
from graphmind.embed.spec import EmbedderSpec

if TYPE_CHECKING:
    from onnxruntime import InferenceSession
    from tokenizers import Tokenizer

_POOLING_MODES = ("pooling_mode_mean_tokens", "pooling_mode_cls_token")


@dataclass(frozen=True)
class PoolingConfig:
    """How token states become one vector, and how many tokens are read."""

    mode: str  # "mean" or "cls"
    max_tokens: int


def read_pooling(model_dir: Path, max_positions: int) -> PoolingConfig:
    """The pooling and maximum sequence length of a sentence-transformers directory
    (mean pooling and the model's positions for a bare transformers directory); a
    ConfigError for modules the ONNX provider cannot run (e.g. a Dense layer)."""
    mode = "mean"
    modules_file = model_dir / "modules.json"
    if modules_file.is_file():
        modules = _read_json(modules_file)
        for module in modules if isinstance(modules, list) else []:
            kind = str(module.get("type", "")).rsplit(".", 1)[-1]
            if kind == "Pooling":
                config = _read_json(model_dir / str(module.get("path", "")) / "config.json")
                chosen = [m for m in _POOLING_MODES if config.get(m)]
                others = [
                    k
                    for k, v in config.items()
                    if k.startswith("pooling_mode") and v and k not in chosen
                ]
                if len(chosen) != 1 or others:
                    raise ConfigError(
                        f"{model_dir}: the onnx embedder supports mean or CLS pooling only; "
                        "use the sentence-transformers provider for this model"
                    )
                mode = "mean" if chosen[0] == "pooling_mode_mean_tokens" else "cls"
            elif kind not in ("Transformer", "Normalize"):
                raise ConfigError(
                    f"{model_dir}: the onnx embedder cannot run a {kind} module; "
                    "use the sentence-transformers provider for this model"
                )
    max_tokens = max_positions
    st_config = model_dir / "sentence_bert_config.json"
    if st_config.is_file():
        length = _read_json(st_config).get("max_seq_length")
        if isinstance(length, int) and length > 0:
            max_tokens = min(length, max_positions)
    return PoolingConfig(mode=mode, max_tokens=max_tokens)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc


class OnnxEmbedder(BatchedEmbedder):
    """A BERT sentence encoder on ONNX Runtime's CPU provider, loaded once on first use.

    Texts are tokenized, sorted by length and run in batches of ``batch_size`` padded to
    their longest text; texts longer than ``max_tokens`` word pieces (256 for
    all-MiniLM-L6-v2) are truncated.
    """

    normalizes = True

    def __init__(
        self,
        spec: EmbedderSpec,
        *,
        batch_size: int = 64,
        threads: int = 0,
    ) -> None:
        super().__init__(spec, batch_size=batch_size)
        self.model_path = resolve_model_path(spec.model)
        self.threads = threads
        self._session: InferenceSession | None = None
        self._tokenizer: Tokenizer | None = None
        self._pooling: PoolingConfig | None = None
        self._lock = threading.Lock()

    def load(self) -> None:
        """Build the ONNX graph and the tokenizer now (once) and check the dimension."""
        if self._session is not None:
            return
        with self._lock:
            if self._session is None:
                started = time.perf_counter()
                self._open()
                self.stats.load_seconds = time.perf_counter() - started

    def _open(self) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ConfigError(
                f"embedder {self.spec.name} needs onnxruntime, onnx and tokenizers: "
                f"pip install graphmind ({exc})"
            ) from exc
        from graphmind.embed.bert_onnx import BertConfig, build_model

        config = BertConfig.read(self.model_path)
        if config.hidden_size != self.spec.dimension:
            raise dimension_mismatch(self.spec, config.hidden_size)
        pooling = read_pooling(self.model_path, config.max_positions)
        tokenizer_file = self.model_path / "tokenizer.json"
        if not tokenizer_file.is_file():
            raise ConfigError(
                f"{self.model_path} has no tokenizer.json, which the onnx embedder needs"
            )
        try:
            tokenizer = Tokenizer.from_file(str(tokenizer_file))
            tokenizer.no_padding()
            tokenizer.enable_truncation(max_length=pooling.max_tokens)
        except Exception as exc:
            raise EmbedderError(f"cannot read the tokenizer {tokenizer_file}: {exc}") from exc
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if self.threads > 0:
            options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        try:
            session = ort.InferenceSession(
                build_model(self.model_path, pooling=pooling.mode),
                options,
                providers=["CPUExecutionProvider"],
            )
        except ConfigError:
            raise
        except Exception as exc:
            raise EmbedderError(
                f"cannot load embedding model {self.spec.model} from {self.model_path} "
                f"into ONNX Runtime: {type(exc).__name__}: {exc}"
            ) from exc
        self._tokenizer, self._pooling, self._session = tokenizer, pooling, session

    @property
    def max_tokens(self) -> int | None:
        """Word pieces the model reads per text (loads the model); longer texts are truncated."""
        self.load()
        assert self._pooling is not None
        return self._pooling.max_tokens

    def _embed_all(self, texts: list[str]) -> tuple[list[list[float]], int]:
        vectors, _, batches = self._run(texts, None)
        return vectors, batches

    def embed_spans(
        self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]
    ) -> tuple[list[list[float]], list[list[list[float] | None]]]:
        """Each text's vector, and for each of its character spans ``(start, end)`` the
        mean of the last hidden states of the word pieces inside the span, as a unit
        vector: what the text says there, read in the context of the whole text, with no
        forward pass of its own. None for a span no piece falls in (for example beyond
        the ``max_tokens`` the text was truncated to)."""
        if len(spans) != len(texts):
            raise EmbeddingError(f"{len(spans)} span lists for {len(texts)} texts")
        if not texts:
            return [], []
        self.load()
        started = time.perf_counter()
        vectors, pooled, batches = self._run(list(texts), spans)
        self.stats.add(len(texts), batches, time.perf_counter() - started)
        return vectors, pooled

    def _run(
        self, texts: list[str], spans: Sequence[Sequence[tuple[int, int]]] | None
    ) -> tuple[list[list[float]], list[list[list[float] | None]], int]:
        import numpy as np

        self.load()
        assert self._tokenizer is not None and self._session is not None
        # sentence-transformers strips texts before tokenizing; so do we.
        encodings = self._tokenizer.encode_batch([t.strip() for t in texts])
        ids = [e.ids for e in encodings]
        order = sorted(range(len(texts)), key=lambda i: len(ids[i]))
        out = np.zeros((len(texts), self.spec.dimension), dtype=np.float32)
        pooled: list[list[list[float] | None]] = [[] for _ in texts]
        outputs = ["embedding"] if spans is None else ["embedding", "tokens"]
        batches = 0
        for start in range(0, len(order), self.batch_size):
            chosen = order[start : start + self.batch_size]
            width = max(len(ids[i]) for i in chosen)
            input_ids = np.zeros((len(chosen), width), dtype=np.int64)
            mask = np.zeros((len(chosen), width), dtype=np.int64)
            for row, i in enumerate(chosen):
                input_ids[row, : len(ids[i])] = ids[i]
                mask[row, : len(ids[i])] = 1
            result = self._session.run(outputs, {"input_ids": input_ids, "attention_mask": mask})
            out[chosen] = result[0]
            if spans is not None:
                for row, i in enumerate(chosen):
                    lead = len(texts[i]) - len(texts[i].lstrip())
                    pooled[i] = [
                        _span_mean(result[1][row], encodings[i], s - lead, e - lead)
                        for s, e in spans[i]
                    ]
            batches += 1
        if not np.isfinite(out).all():
            raise EmbeddingError(f"embedder {self.spec.name} returned NaN or infinite values")
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        result_vectors: list[list[float]] = (out / np.where(norms == 0.0, 1.0, norms)).tolist()
        return result_vectors, pooled, batches


def _span_mean(states: Any, encoding: Any, start: int, end: int) -> list[float] | None:
    """The unit mean of the hidden states of the word pieces inside ``[start, end)``
    (special pieces left out); None when no piece is."""
    import numpy as np

    rows = [
        k
        for k, ((a, b), special) in enumerate(
            zip(encoding.offsets, encoding.special_tokens_mask, strict=True)
        )
        if not special and a >= start and b <= end and b > a
    ]
    if not rows:
        return None
    mean = states[rows].mean(axis=0)
    norm = float(np.linalg.norm(mean))
    if not np.isfinite(norm) or norm == 0.0:
        return None
    vector: list[float] = (mean / norm).tolist()
    return vector
