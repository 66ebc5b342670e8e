"""Store fixtures: every test of a store runs on FalkorDB Lite, and on Neo4j when
GRAPHMIND_TEST_NEO4J_URI is set (that database's GraphMind data is wiped per test);
``scripts/test.sh`` starts a Neo4j test server when it can."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from openai_server import FakeServer, serving

from buildkit import CORPUS
from graphmind.embed.spec import EmbedderSpec
from graphmind.store.base import GraphStore
from graphmind.store.registry import QueryRegistry, default_root

TEST_CYPHER = Path(__file__).parent / "cypher"
NEO4J_URI = os.environ.get("GRAPHMIND_TEST_NEO4J_URI")
NEO4J_SKIP = "Neo4j contract tests need GRAPHMIND_TEST_NEO4J_URI (and _USER, _PASSWORD)"
EMBEDDER = EmbedderSpec("sentence-transformers", "all-MiniLM-L6-v2", 384)
FIRST_SEEN = ("ingested_at", "description", "embedding", "type")  # set by an entity's first use

StoreFactory = Callable[..., GraphStore]


# What a skip reason names when a test skips for want of a Neo4j server or of chromium.
REQUIRABLE = {"neo4j": "GRAPHMIND_TEST_NEO4J_URI", "browser": "chromium"}


def required() -> set[str]:
    """What may not be skipped: ``GRAPHMIND_TEST_REQUIRE`` (``neo4j,browser``), or both of
    them when ``CI`` is set (``.ci/run`` sets both variables)."""
    named = os.environ.get("GRAPHMIND_TEST_REQUIRE")
    if named is None:
        ci = os.environ.get("CI", "").strip().lower()
        return set(REQUIRABLE) if ci not in ("", "0", "false", "no") else set()
    wanted = {part.strip() for part in named.split(",") if part.strip()}
    unknown = wanted - set(REQUIRABLE)
    if unknown:
        raise pytest.UsageError(
            f"GRAPHMIND_TEST_REQUIRE names {sorted(unknown)}: use neo4j,browser"
        )
    return wanted


def pytest_report_header() -> str:
    must = ", ".join(sorted(required())) or "nothing"
    shown = "on " + NEO4J_URI if NEO4J_URI else "skipped: " + NEO4J_SKIP
    return f"neo4j contract tests: {shown}; required (a skip fails): {must}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A test skipped for want of something required (``required()``) fails instead."""
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if not report.skipped or not isinstance(report.longrepr, tuple):
        return
    reason = str(report.longrepr[2])
    missing = [name for name in required() if REQUIRABLE[name] in reason]
    if missing:
        report.outcome = "failed"
        report.longrepr = f"required ({', '.join(missing)}) but skipped: {reason}"


def registry(backend: str) -> QueryRegistry:
    """Product queries plus the contract tests' own."""
    return QueryRegistry(backend, (default_root(), TEST_CYPHER))  # type: ignore[arg-type]


def open_falkordb(path: Path, **kwargs: object) -> GraphStore:
    from graphmind.store.falkordb import FalkorDBLiteStore

    return FalkorDBLiteStore(str(path), registry=registry("falkordb"), **kwargs)  # type: ignore[arg-type]


def open_neo4j() -> GraphStore:
    from graphmind.store.neo4j import Neo4jStore

    assert NEO4J_URI
    return Neo4jStore(
        NEO4J_URI,
        user=os.environ.get("GRAPHMIND_TEST_NEO4J_USER", "neo4j"),
        password=os.environ.get("GRAPHMIND_TEST_NEO4J_PASSWORD"),
        database=os.environ.get("GRAPHMIND_TEST_NEO4J_DATABASE"),
        registry=registry("neo4j"),
    )


def neo4j_settings() -> dict[str, str]:
    """The Neo4j under test as GraphMind settings (``store``, ``neo4j_user`` …)."""
    assert NEO4J_URI
    settings = {"store": NEO4J_URI}
    for name in ("user", "password", "database"):
        value = os.environ.get(f"GRAPHMIND_TEST_NEO4J_{name.upper()}")
        if value is not None:
            settings[f"neo4j_{name}"] = value
    return settings


@pytest.fixture(params=["falkordb", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def backend(request: pytest.FixtureRequest) -> str:
    if request.param == "neo4j" and not NEO4J_URI:
        pytest.skip(NEO4J_SKIP)
    return str(request.param)


@pytest.fixture
def open_store(backend: str, tmp_path: Path) -> Iterator[StoreFactory]:
    """Opens the backend's store (the same one on every call within a test)."""
    opened: list[GraphStore] = []
    wiped = False

    def factory(**kwargs: object) -> GraphStore:
        nonlocal wiped
        store = (
            open_falkordb(tmp_path / "graph.db", **kwargs)
            if backend == "falkordb"
            else open_neo4j()
        )
        if backend == "neo4j" and not wiped:
            store.wipe()
            wiped = True
        opened.append(store)
        return store

    yield factory
    for store in opened:
        store.close()


@pytest.fixture
def corpus_store(open_store: StoreFactory, tmp_path: Path) -> GraphStore:
    """The ask loop's two-hop fixture corpus (``helpers.ask.DOCS``) built into the store."""
    from helpers.ask import built

    return built(open_store(), tmp_path)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A copy of the fixture corpus, free to edit."""
    target = tmp_path / "corpus"
    shutil.copytree(CORPUS, target)
    return target


@pytest.fixture
def store_env(backend: str) -> dict[str, str]:
    """``GRAPHMIND_*`` variables that point a ``graphmind`` process at the backend's store:
    none for FalkorDB Lite (the default file in its working directory), the Neo4j under
    test (wiped first) otherwise."""
    if backend == "falkordb":
        return {}
    with open_neo4j() as store:
        store.wipe()
    return {f"GRAPHMIND_{k.upper()}": v for k, v in neo4j_settings().items()}


def store_settings(tmp_path: Path, store_env: dict[str, str]) -> dict[str, str]:
    """Settings for the store ``store_env`` names: a FalkorDB Lite file in ``tmp_path``
    (with an LLM cache beside it), or the Neo4j under test (cache in ``tmp_path``)."""
    if not store_env:
        return {"store": f"falkordb-lite://{tmp_path / 'graph.db'}"}
    return {**neo4j_settings(), "llm_cache": str(tmp_path / "llm_cache.sqlite")}


@pytest.fixture
def store(open_store: StoreFactory) -> GraphStore:
    """A fresh store with the schema set up for the default embedder."""
    s = open_store()
    s.ensure_schema(EMBEDDER)
    return s


def asked_question(messages: list[dict[str, str]]) -> str:
    """The question an answer call asks (its "Question: ..." line, wherever it is)."""
    content = messages[1]["content"]
    return next(line for line in content.splitlines() if line.startswith("Question: "))


def chunk_rows_for_child(n: int) -> list[dict[str, object]]:
    """Chunk rows with constant embeddings, for tests that write from a child process."""
    vector = [1.0] + [0.0] * (EMBEDDER.dimension - 1)
    return [
        {"id": f"c{i}", "text": f"chunk {i}", "position": i, "embedding": vector} for i in range(n)
    ]


@pytest.fixture
def serve(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., FakeServer]]:
    """An OpenAI-compatible test server factory (see ``openai_server``)."""
    yield from serving(monkeypatch)
