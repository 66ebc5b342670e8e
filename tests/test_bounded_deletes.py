"""Deletions run in transactions bounded by the relationships they remove (Neo4j's
transaction memory is finite: one transaction deleting a 1M-edge reasoning graph failed).
With the bound made small, prune and wipe still give exact results, in many bounded
transactions, on both stores."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import EMBEDDER, StoreFactory, chunk_rows_for_child
from graphmind.memory import prune
from graphmind.store import neo4j as neo4j_store
from graphmind.store.base import GraphStore

BOUND = 50
BOUNDED = ("memory/prune_evaluations", "store/delete_label_relationships")


def watch(store: GraphStore, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Record (query, deleted) of every bounded deletion the store runs."""
    seen: list[tuple[str, int]] = []
    run = store.run

    def recording(name: str, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        rows = run(name, *args, **kwargs)
        if name in BOUNDED:
            seen.append((name, int(rows[0]["deleted"])))
        return rows

    monkeypatch.setattr(store, "run", recording)
    return seen


def test_prune_and_wipe_in_bounded_transactions(
    open_store: StoreFactory, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prune, "EDGES", BOUND)
    monkeypatch.setattr(neo4j_store, "DELETE_BATCH", BOUND)
    store = open_store()
    store.ensure_schema(EMBEDDER)
    chunks = chunk_rows_for_child(20)
    store.write_rows("contract/merge_chunks", chunks)
    decisions = [{"id": f"d{i}", "created_at": i} for i in range(30)]
    store.write_rows(
        "contract/evaluating_decisions", decisions, params={"chunks": [c["id"] for c in chunks]}
    )
    seen = watch(store, monkeypatch)
    report = prune.prune_evaluations(store, keep=4)
    assert report.deleted == 20 * (30 - 4)
    kept = store.run_text(
        "MATCH (d:Decision)-[:EVALUATED]->(c:Chunk) "
        "RETURN c.id AS chunk, collect(d.created_at) AS kept ORDER BY chunk"
    ).records()
    assert len(kept) == 20 and all(sorted(r["kept"]) == [26, 27, 28, 29] for r in kept)
    batches = [n for name, n in seen if name == "memory/prune_evaluations"]
    assert max(batches) <= BOUND and sum(batches) == report.deleted and len(batches) > 10
    relationships = store.relationship_count()  # the evaluations kept and their stats
    store.wipe()
    assert sum(store.counts().values()) == 0 and store.relationship_count() == 0
    if backend == "neo4j":  # FalkorDB drops the whole graph in one command
        wiped = [n for name, n in seen if name == "store/delete_label_relationships"]
        assert max(wiped) <= BOUND and sum(wiped) == relationships
