"""The store contract: every operation, on FalkorDB Lite always and on Neo4j when configured."""

from __future__ import annotations

import math
import random
import time
from typing import Any

import pytest

from conftest import EMBEDDER, StoreFactory
from graphmind.core.errors import EmbedderMismatchError, QueryFailedError, QueryParameterError
from graphmind.embed.spec import EmbedderSpec
from graphmind.store.base import GraphStore

DIM = EMBEDDER.dimension


def unit(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector]


def random_vectors(n: int, seed: int) -> list[list[float]]:
    rng = random.Random(seed)
    return [unit([rng.gauss(0, 1) for _ in range(DIM)]) for _ in range(n)]


def chunk_rows(n: int, seed: int = 0) -> list[dict[str, Any]]:
    vectors = random_vectors(n, seed)
    return [
        {"id": f"c{i}", "text": f"chunk number {i}", "position": i, "embedding": vectors[i]}
        for i in range(n)
    ]


def index_states(store: GraphStore) -> set[tuple[str, str, str]]:
    return {(i.name, i.kind, i.state) for i in store.indexes()}


def test_schema_setup_is_idempotent(open_store: StoreFactory) -> None:
    store = open_store()
    store.ensure_schema(EMBEDDER)
    first = index_states(store)
    meta = store.meta()
    store.ensure_schema(EMBEDDER)
    assert index_states(store) == first
    assert store.meta() == meta
    assert meta is not None and meta["embedder"] == EMBEDDER.name and meta["dimension"] == DIM
    kinds = {(i.label, i.kind.upper()) for i in store.indexes()}
    for label in ("Chunk", "Triplet", "Entity", "Community"):
        assert (label, "VECTOR") in kinds
    assert ("Chunk", "FULLTEXT") in kinds and ("Entity", "FULLTEXT") in kinds
    assert all(i.state.upper() in ("ONLINE", "OPERATIONAL") for i in store.indexes())
    assert store.counts()["GraphMindMeta"] == 1


def test_batched_merge_of_10k_rows(store: GraphStore) -> None:
    rows = chunk_rows(10_000)
    started = time.perf_counter()
    assert store.write_rows("contract/merge_chunks", rows, batch_size=1000) == 10_000
    elapsed = time.perf_counter() - started
    print(f"\n[{store.backend}] 10k-row batched MERGE: {elapsed:.2f}s")
    assert store.counts()["Chunk"] == 10_000
    store.write_rows("contract/merge_chunks", rows[:500], batch_size=250)
    assert store.counts()["Chunk"] == 10_000
    back = store.run("contract/chunk_by_id", {"id": "c9999"})
    assert back == [{"id": "c9999", "text": "chunk number 9999", "position": 9999}]


def test_vector_search_finds_nearest_neighbours(store: GraphStore) -> None:
    rows = chunk_rows(300, seed=7)
    store.write_rows("contract/merge_chunks", rows)
    probes = random_vectors(20, seed=99)
    latencies = []
    for probe in probes:
        expected = sorted(
            rows, key=lambda r: -sum(a * b for a, b in zip(probe, r["embedding"], strict=True))
        )[:5]
        started = time.perf_counter()
        hits = store.vector_search("Chunk", probe, 5)
        latencies.append(time.perf_counter() - started)
        assert [h.id for h in hits] == [r["id"] for r in expected]
        for hit, row in zip(hits, expected, strict=True):
            cosine = sum(a * b for a, b in zip(probe, row["embedding"], strict=True))
            assert 0.0 <= hit.similarity <= 1.0
            assert hit.similarity == pytest.approx((1 + cosine) / 2, abs=1e-3)
            assert hit.properties["text"] == row["text"] and "embedding" not in hit.properties
    same = store.vector_search("Chunk", rows[3]["embedding"], 1)
    assert same[0].id == "c3" and same[0].similarity == pytest.approx(1.0, abs=1e-4)
    latencies.sort()
    print(f"\n[{store.backend}] vector query p50 {latencies[len(latencies) // 2] * 1000:.2f} ms")


def test_fulltext_search(store: GraphStore) -> None:
    texts = [
        "Neo4j is a graph database with vector indexes",
        "FalkorDB is an embedded graph database",
        "Leiden finds communities in networks",
    ]
    vectors = random_vectors(3, seed=1)
    store.write_rows(
        "contract/merge_chunks",
        [
            {"id": f"t{i}", "text": t, "position": i, "embedding": vectors[i]}
            for i, t in enumerate(texts)
        ],
    )
    store.write_rows(
        "contract/merge_entities",
        [{"id": "e1", "name": "Ada Lovelace"}, {"id": "e2", "name": "Charles Babbage"}],
    )
    hits = store.fulltext_search("Chunk", "embedded database?", 10)
    assert {h.id for h in hits} == {"t0", "t1"}
    assert hits[0].id == "t1"
    assert store.fulltext_search("Chunk", "communities", 10)[0].properties["position"] == 2
    assert [h.id for h in store.fulltext_search("Entity", "lovelace", 5)] == ["e1"]
    assert store.fulltext_search("Chunk", "  ?! ", 5) == []


def test_fulltext_rare_words_outrank_frequent_ones(store: GraphStore) -> None:
    """BM25 on both backends: a question's rare name finds its passage, however often
    the other passages repeat the question's common words."""
    texts = [
        f"Person {i}\nPerson {i} is a film producer who has directed the film of the year."
        for i in range(30)
    ]
    texts.append("Aatma Gowravam\nAatma Gowravam is a 1966 Telugu drama directed by K. Viswanath.")
    vectors = random_vectors(len(texts), seed=2)
    store.write_rows(
        "contract/merge_chunks",
        [
            {"id": f"f{i:02d}", "text": t, "position": i, "embedding": vectors[i]}
            for i, t in enumerate(texts)
        ],
    )
    hits = store.fulltext_search(
        "Chunk", "Which film has the producer who is older, Aatma Gowravam or Vitti Dandu?", 5
    )
    assert hits[0].id == "f30"
    assert len(hits) == 5 and all(h.score > 0 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_embedder_mismatch_is_refused(open_store: StoreFactory) -> None:
    store = open_store()
    store.ensure_schema(EMBEDDER)
    other = EmbedderSpec("sentence-transformers", "all-mpnet-base-v2", 768)
    with pytest.raises(EmbedderMismatchError) as caught:
        store.ensure_schema(other)
    message = str(caught.value)
    assert EMBEDDER.name in message and "384" in message
    assert other.name in message and "768" in message
    assert store.meta()["embedder"] == EMBEDDER.name  # type: ignore[index]


def test_data_survives_close_and_reopen(open_store: StoreFactory) -> None:
    store = open_store()
    store.ensure_schema(EMBEDDER)
    store.write_rows("contract/merge_chunks", chunk_rows(50))
    store.close()
    again = open_store()
    again.ensure_schema(EMBEDDER)
    assert again.counts()["Chunk"] == 50
    assert again.vector_search("Chunk", chunk_rows(50)[10]["embedding"], 1)[0].id == "c10"


def test_bad_parameters_fail_cleanly_and_write_nothing(store: GraphStore) -> None:
    store.write_rows("contract/merge_chunks", chunk_rows(3))
    before = (store.counts(), store.relationship_count())
    good, bad = chunk_rows(5)[3:]
    bad["id"] = None
    with pytest.raises(QueryFailedError):
        store.write_rows("contract/merge_chunks", [good, bad])
    with pytest.raises(QueryParameterError, match=r"\$id"):
        store.run("contract/chunk_by_id", {})
    with pytest.raises(QueryParameterError, match="row 1"):
        store.write_rows("contract/merge_chunks", [good, {"id": "x"}])
    with pytest.raises(QueryParameterError, match="unsupported type"):
        store.write_rows("contract/merge_chunks", [{**good, "text": object()}])
    assert (store.counts(), store.relationship_count()) == before


def test_projection_and_algorithm_results(store: GraphStore) -> None:
    store.write_rows(
        "contract/merge_entities", [{"id": f"e{i}", "name": f"entity {i}"} for i in range(4)]
    )
    store.write_rows(
        "contract/relate_entities",
        [
            {"source": "e0", "target": "e1", "weight": 2.0},
            {"source": "e1", "target": "e2", "weight": 1.0},
        ],
    )
    projection = store.read_projection("contract/entity_projection")
    assert sorted(projection.nodes) == ["e0", "e1", "e2", "e3"]
    assert sorted(projection.edges) == [("e0", "e1", 2.0), ("e1", "e2", 1.0)]
    store.write_results("contract/set_pagerank", [{"id": "e1", "score": 0.5}])
    rows = store.run_text("MATCH (e:Entity {id: 'e1'}) RETURN e.pagerank AS pr").records()
    assert rows == [{"pr": 0.5}]


def test_awkward_strings_and_values_round_trip(store: GraphStore) -> None:
    texts = [
        "quotes \" and ' and `backticks`",
        'back\\slash \\" escaped quote',
        "new\nline\ttab and unicode: Zoë, 東京, emoji 🚀",
        "$notaparam {{VEC}} // not a comment",
        "",
    ]
    vectors = random_vectors(len(texts), seed=5)
    rows = [
        {"id": f"s{i}", "text": t, "position": i, "embedding": vectors[i]}
        for i, t in enumerate(texts)
    ]
    store.write_rows("contract/merge_chunks", rows)
    for row in rows:
        back = store.run("contract/chunk_by_id", {"id": row["id"]})
        assert back == [{"id": row["id"], "text": row["text"], "position": row["position"]}]
    with pytest.raises(QueryParameterError):
        store.write_rows("contract/merge_chunks", [{**rows[0], "embedding": [float("nan")] * DIM}])
    with pytest.raises(QueryParameterError, match="not a finite number"):
        store.write_rows("contract/merge_chunks", [{**rows[0], "position": float("inf")}])


def test_a_capped_read_keeps_the_first_rows_and_says_there_were_more(store: GraphStore) -> None:
    store.write_rows(
        "contract/merge_entities", [{"id": f"e{i:03d}", "name": f"n{i}"} for i in range(2500)]
    )
    query = "MATCH (e:Entity) RETURN e.id AS id ORDER BY id"
    everything = store.run_text(query)
    assert len(everything.rows) == 2500 and not everything.more
    capped = store.run_text(query, max_rows=1200)  # beyond the driver's first fetch
    assert [r[0] for r in capped.rows] == [r[0] for r in everything.rows[:1200]]
    assert capped.more and capped.columns == ["id"]
    exact = store.run_text(query, max_rows=2500)
    assert len(exact.rows) == 2500 and not exact.more
    named = store.read_capped("contract/entity_projection", {}, 3)
    assert len(named.records()) == 3 and named.more
    # the store answers the next query on the same connection after the cut
    assert store.run_text("MATCH (e:Entity) RETURN count(e) AS n").records() == [{"n": 2500}]
