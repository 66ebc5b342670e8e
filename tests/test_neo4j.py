"""The Neo4j driver stays quiet through a build, a re-build, communities, an ask, feedback
and a trace: no notification is logged, and no query aggregates nulls."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from neo4j import exceptions as neo4j_exceptions

from buildkit import HASH_SPEC, build, scripted_llm
from conftest import NEO4J_SKIP, NEO4J_URI, open_neo4j
from graphmind.communities.pipeline import build_communities
from graphmind.core.errors import QueryFailedError
from graphmind.embed.hashing import HashingEmbedder
from graphmind.memory.decisions import read_decision
from graphmind.memory.feedback import record_feedback
from graphmind.memory.session import MemoryOptions
from graphmind.store import neo4j as neo4j_store
from graphmind.store.base import GraphStore
from helpers.ask import DOCS, QUESTION, loop, responder

pytestmark = [
    pytest.mark.neo4j,
    pytest.mark.skipif(not NEO4J_URI, reason=NEO4J_SKIP),
]


@pytest.fixture
def neo4j() -> Iterator[GraphStore]:
    store = open_neo4j()
    store.wipe()
    try:
        yield store
    finally:
        store.close()


def build_ask_and_trace(store: GraphStore, tmp_path: Path, memory: str) -> None:
    """The everyday commands: a build with extraction and communities, a re-build after a
    document changed, an ask (which grows the graph), feedback and the trace."""
    corpus = tmp_path / "corpus.json"
    docs = [{"title": t, "text": x} for t, x in DOCS.items()]
    corpus.write_text(json.dumps(docs))
    llm = scripted_llm(tmp_path / "cache.sqlite", responder)
    build(store, [corpus], llm)
    build_communities(store, HashingEmbedder(HASH_SPEC), llm)
    docs[3]["text"] = "The city of Brask opened a cinema in 1950."
    corpus.write_text(json.dumps(docs))
    assert build(store, [corpus], llm).documents_changed == 1
    decision = loop(store, tmp_path, memory=MemoryOptions(mode=memory)).ask(QUESTION)  # type: ignore[arg-type]
    record_feedback(store, decision.id, gold="Port Ellis")
    assert read_decision(store, decision.id) is not None


def driver_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage()[:300] for r in caplog.records if r.name.startswith("neo4j")]


def test_a_build_an_ask_and_a_trace_log_no_driver_warning(
    neo4j: GraphStore, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="neo4j"):
        build_ask_and_trace(neo4j, tmp_path, "full")
    assert driver_warnings(caplog) == []


def test_no_query_aggregates_nulls_even_unfiltered(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every warning the server sends, unfiltered: GraphMind's queries must not trigger
    "null value eliminated in set function" (memory off: the evidence-profile query is
    checked by the test above only)."""
    monkeypatch.setattr(neo4j_store, "NOTIFICATIONS", {"notifications_min_severity": "WARNING"})
    store = open_neo4j()
    try:
        store.wipe()
        with caplog.at_level(logging.WARNING, logger="neo4j"):
            build_ask_and_trace(store, tmp_path, "off")
    finally:
        store.close()
    assert [w for w in driver_warnings(caplog) if "null value eliminated" in w] == []


def test_parameters_reach_the_server_whole_but_are_not_formatted_for_the_log(
    neo4j: GraphStore, caplog: pytest.LogCaptureFixture
) -> None:
    """The driver formats every query's parameters for its debug log, logging or not; a
    batch of vectors must pass as itself, with only a short form for the log."""
    rows = [{"id": f"c{i}", "v": [i + j / 384 for j in range(384)]} for i in range(300)]
    with caplog.at_level(logging.DEBUG, logger="neo4j"):
        got = neo4j.run_text(
            "UNWIND $rows AS r WITH r WHERE r.id = $pick.id "
            "RETURN r.v AS v, $pick.n AS n, size($rows) AS total",
            {"rows": rows, "pick": {"id": "c7", "n": 3}},
        ).records()
    assert got == [{"v": rows[7]["v"], "n": 3, "total": 300}]
    runs = [r.getMessage() for r in caplog.records if "C: RUN" in r.getMessage()]
    assert runs and max(len(m) for m in runs) < 1000


def test_builders_creating_the_same_index_at_once_do_not_fail(neo4j: GraphStore) -> None:
    """Builders on a new database run the same ``CREATE … IF NOT EXISTS`` at once; Neo4j
    then refuses all but one as already existing (without the fix, most of these calls
    failed), which is not an error here."""
    workers = 8
    stores = [open_neo4j() for _ in range(workers)]
    try:
        for _ in range(5):
            neo4j.run("schema/drop_index", write=True, index="document_source")
            barrier = threading.Barrier(workers)

            def create(store: GraphStore, start: threading.Barrier = barrier) -> None:
                assert isinstance(store, neo4j_store.Neo4jStore)
                start.wait()
                store.create_schema_rule(
                    "schema/create_property_index",
                    index="document_source",
                    label="Document",
                    property="source",
                )

            with ThreadPoolExecutor(workers) as pool:
                for future in [pool.submit(create, s) for s in stores]:
                    future.result()  # re-raises a builder's error
            names = {r["name"] for r in neo4j.run("schema/list_indexes")}
            assert "document_source" in names
    finally:
        for store in stores:
            store.close()


def test_reads_run_read_only_and_retry_what_the_driver_would(
    neo4j: GraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read is one auto-commit transaction in read access mode: the server refuses a
    write in it, and an error the driver calls retryable is tried again."""
    with pytest.raises(QueryFailedError, match="read access mode"):
        neo4j.run_text("CREATE (:ReadOnlyProbe)")
    assert neo4j.run_text("MATCH (n:ReadOnlyProbe) RETURN count(n) AS n").records() == [{"n": 0}]
    assert isinstance(neo4j, neo4j_store.Neo4jStore)
    driver = neo4j._driver
    real = driver.session
    failures = {"left": neo4j_store.READ_TRIES - 1}

    class Flaky:
        def __init__(self, **options: object) -> None:
            self.session = real(**options)  # type: ignore[arg-type]

        def __enter__(self) -> Flaky:
            return self

        def __exit__(self, *exc: object) -> None:
            self.session.close()

        def run(self, text: str, params: dict[str, object]) -> object:
            if failures["left"]:
                failures["left"] -= 1
                raise neo4j_exceptions.TransientError("the server was busy")
            return self.session.run(text, params)

    monkeypatch.setattr(neo4j_store, "READ_BACKOFF", 0.0)
    monkeypatch.setattr(driver, "session", Flaky)
    assert neo4j.run_text("RETURN 1 AS one").records() == [{"one": 1}]
    assert failures["left"] == 0
    failures["left"] = neo4j_store.READ_TRIES  # one more failure than there are tries
    with pytest.raises(QueryFailedError, match="Neo4j rejected the query"):
        neo4j.run_text("RETURN 1 AS one")
