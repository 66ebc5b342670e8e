"""The ONNX Runtime embedder, the default: it reproduces sentence-transformers' vectors
for all-MiniLM-L6-v2 without torch, so a store built with either provider opens with the
other, and never with another model."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from graphmind.core.errors import ConfigError, EmbedderMismatchError
from graphmind.embed import parse_embedder
from graphmind.embed.bert_onnx import BertConfig
from graphmind.embed.local_models import packaged_model_path
from graphmind.embed.onnx_provider import OnnxEmbedder, read_pooling
from graphmind.embed.spec import EmbedderSpec, same_vectors
from graphmind.store.base import GraphStore

REPO = Path(__file__).resolve().parent.parent
# Vectors sentence-transformers computed for these texts (normalize_embeddings=True).
REFERENCE = json.loads(
    (Path(__file__).parent / "fixtures" / "minilm_reference.json").read_text(encoding="utf-8")
)
ONNX = parse_embedder("onnx:all-MiniLM-L6-v2")
OTHER = parse_embedder("onnx:all-MiniLM-L12-v2")


def cosine(a: list[float], b: list[float]) -> float:
    return math.fsum(x * y for x, y in zip(a, b, strict=True))


def test_onnx_vectors_are_sentence_transformers_vectors() -> None:
    embedder = OnnxEmbedder(ONNX, batch_size=3)
    vectors = embedder.embed(REFERENCE["texts"])
    worst = max(
        abs(a - b)
        for mine, theirs in zip(vectors, REFERENCE["vectors"], strict=True)
        for a, b in zip(mine, theirs, strict=True)
    )
    assert worst < 1e-5
    assert embedder.stats.batches == 3 and embedder.stats.texts == len(REFERENCE["texts"])
    assert embedder.max_tokens == 256
    # a text's vector does not depend on the batch it is in
    alone = embedder.embed([REFERENCE["texts"][4]])[0]
    assert max(abs(a - b) for a, b in zip(alone, vectors[4], strict=True)) < 1e-5


def test_the_default_embedder_runs_without_torch(tmp_path: Path) -> None:
    code = (
        "import json, sys\n"
        "from graphmind.config import load_settings\n"
        "from graphmind.factories import make_embedder\n"
        "e = make_embedder(load_settings())\n"
        "v = e.embed(['A cat sits on the mat.'])[0]\n"
        "print(json.dumps([e.spec.name, len(v), 'torch' in sys.modules,"
        " 'sentence_transformers' in sys.modules]))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMIND_")}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == ["onnx:all-MiniLM-L6-v2", 384, False, False]


def test_local_providers_share_stores_and_other_models_are_refused(store: GraphStore) -> None:
    # the store fixture is built for sentence-transformers:all-MiniLM-L6-v2
    store.ensure_schema(ONNX)
    assert (store.meta() or {})["embedder"] == "sentence-transformers:all-MiniLM-L6-v2"
    with pytest.raises(EmbedderMismatchError) as caught:
        store.ensure_schema(OTHER)
    message = str(caught.value)
    assert "sentence-transformers:all-MiniLM-L6-v2" in message
    assert "onnx:all-MiniLM-L12-v2" in message


def test_same_vectors_only_across_the_local_providers() -> None:
    st = "sentence-transformers:all-MiniLM-L6-v2"
    assert same_vectors(st, ONNX) and same_vectors("onnx:all-MiniLM-L6-v2", ONNX)
    assert not same_vectors(st, OTHER)
    assert not same_vectors("sentence-transformers:all-mpnet-base-v2", ONNX)
    assert not same_vectors("openai:all-MiniLM-L6-v2", ONNX)
    assert same_vectors(
        "onnx:all-MiniLM-L6-v2", EmbedderSpec("sentence-transformers", "all-MiniLM-L6-v2", 384)
    )


def test_models_the_onnx_provider_cannot_run_fail_clearly(tmp_path: Path) -> None:
    packaged = packaged_model_path("all-MiniLM-L6-v2")
    assert packaged is not None
    config = BertConfig.read(packaged)
    assert (config.hidden_size, config.num_layers, config.num_heads) == (384, 6, 12)
    assert read_pooling(packaged, config.max_positions).mode == "mean"

    model = tmp_path / "model"
    model.mkdir()
    shutil.copy(packaged / "config.json", model / "config.json")
    (model / "model.safetensors").symlink_to(packaged / "model.safetensors")
    with pytest.raises(ConfigError, match=r"no tokenizer\.json"):
        OnnxEmbedder(EmbedderSpec("onnx", str(model), 384)).load()

    (model / "modules.json").write_text(
        json.dumps(
            [
                {
                    "idx": 0,
                    "name": "0",
                    "path": "",
                    "type": "sentence_transformers.models.Transformer",
                },
                {
                    "idx": 1,
                    "name": "1",
                    "path": "1_Pooling",
                    "type": "sentence_transformers.models.Pooling",
                },
                {
                    "idx": 2,
                    "name": "2",
                    "path": "2_Dense",
                    "type": "sentence_transformers.models.Dense",
                },
            ]
        )
    )
    (model / "1_Pooling").mkdir()
    (model / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_cls_token": True}))
    with pytest.raises(ConfigError, match="cannot run a Dense module"):
        read_pooling(model, 512)
    (model / "modules.json").write_text(
        json.dumps(json.loads((model / "modules.json").read_text())[:2])
    )
    assert read_pooling(model, 512).mode == "cls"
    (model / "1_Pooling" / "config.json").write_text(
        json.dumps({"pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": True})
    )
    with pytest.raises(ConfigError, match="mean or CLS pooling only"):
        read_pooling(model, 512)

    (model / "config.json").write_text(json.dumps({"model_type": "roberta", "hidden_size": 8}))
    with pytest.raises(ConfigError, match="BERT encoders"):
        BertConfig.read(model)


def test_a_span_is_read_from_its_texts_own_pass() -> None:
    embedder = OnnxEmbedder(ONNX, batch_size=2)
    sentence = "She worked with Otto Hahn in Berlin."
    story = "  Lise Meitner was born in Vienna in 1878. " + sentence
    long = "word " * 400 + sentence
    texts = [*REFERENCE["texts"][:2], story, long]
    plain = embedder.embed(texts)
    at = story.index(sentence)
    vectors, spans = embedder.embed_spans(
        texts,
        [
            [],
            [(0, len(texts[1]))],
            [(at, at + len(sentence)), (len(story), len(story) + 9)],
            [(long.index(sentence), len(long))],
        ],
    )
    # the texts' own vectors do not change when spans are read from their pass
    assert (
        max(
            abs(a - b)
            for v, w in zip(vectors, plain, strict=True)
            for a, b in zip(v, w, strict=True)
        )
        < 1e-5
    )
    assert spans[0] == [] and len(spans[2]) == 2
    read = spans[2][0]
    assert read is not None and abs(cosine(read, read) - 1.0) < 1e-5
    alone, other = embedder.embed([sentence, "Lise Meitner was born in Vienna in 1878."])
    assert cosine(read, alone) > 0.7 and cosine(read, alone) > cosine(read, other)
    whole = spans[1][0]  # every piece but [CLS] and [SEP]: close to the text's mean
    assert whole is not None and cosine(whole, plain[1]) > 0.95
    assert spans[2][1] is None  # no piece after the text's end
    assert spans[3] == [None]  # beyond the 256 pieces the model reads
