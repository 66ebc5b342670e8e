"""The evidence stats kept on write give exactly what the backward traversal gives.

A property test builds random reasoning graphs through the real write paths (decisions
written by ``write_decision``, outcomes set and flipped by ``record_feedback``, edges cut
by ``prune_evaluations``) and, after every step, compares the fast profiles and planner
exclusions with the ones computed by traversing every incoming EVALUATED edge. The
window is made small (3 to 5) so that its insertions, truncations and refills all happen
in graphs of a few decisions. Runs on FalkorDB Lite and on Neo4j.
"""

from __future__ import annotations

import itertools
import uuid
from collections import Counter
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conftest import EMBEDDER
from graphmind.core.decision import (
    Candidate,
    Decision,
    Judgement,
    Retrieval,
    Round,
    Sufficiency,
    Verdict,
)
from graphmind.memory import stats
from graphmind.memory.decisions import write_decision
from graphmind.memory.feedback import record_feedback
from graphmind.memory.planner import (
    PlannerOptions,
    excluded_evidence,
    recipe_stats,
    traversed_exclusions,
    traversed_recipe_stats,
)
from graphmind.memory.profiles import ProfileOptions, evidence_profiles, traversed_profiles
from graphmind.memory.prune import prune_evaluations
from graphmind.store.base import GraphStore

CHUNKS = 2
TYPES = 2
WINDOW = 3
CAPACITY = 5
RECIPES = ("default", "narrow")
REASONS = ("another movie", "Another movie.", "wrong year", "names the director", "")
OPTIONS = (
    ProfileOptions(tmax=WINDOW, recent=2),  # what the window is sized for
    ProfileOptions(tmax=1, recent=1),
    ProfileOptions(tmax=CAPACITY + 1, recent=2),  # beyond the window: read by traversal
)
PLANNER = (PlannerOptions(reject_threshold=0.5, min_support=1), PlannerOptions())


@dataclass(frozen=True)
class Decide:
    """A decision judging some chunks: (chunk number, verdict, reason number) each."""

    verdicts: tuple[tuple[int, bool, int], ...]
    at: int  # created_at; small, so that decisions tie and the id breaks the tie
    type: int
    correct: bool  # written already correct (as an evaluation run with gold answers may)
    recipe: int = 0


@dataclass(frozen=True)
class Feedback:
    decision: int  # among the decisions written so far (modulo), counted from one end
    newest: bool  # from the newest (flips inside the windows) or the oldest (outside)
    correct: bool


@dataclass(frozen=True)
class Prune:
    keep: int


decide = st.builds(
    Decide,
    verdicts=st.lists(
        st.tuples(st.integers(0, CHUNKS - 1), st.booleans(), st.integers(0, len(REASONS) - 1)),
        min_size=1,
        max_size=CHUNKS,
        unique_by=lambda v: v[0],
    ).map(tuple),
    at=st.integers(0, 3),
    type=st.integers(0, TYPES - 1),
    correct=st.booleans(),  # pending (as ask writes them), or correct already
    recipe=st.integers(0, len(RECIPES) - 1),
)
step = st.one_of(
    decide,
    decide,
    st.builds(
        Feedback,
        decision=st.integers(0, 9),
        newest=st.booleans(),
        correct=st.sampled_from([True, True, False]),
    ),
    st.builds(Prune, keep=st.integers(1, 4)),
)


def decision(prefix: str, n: int, op: Decide) -> Decision:
    """A one-round decision judging the chunks ``op`` names."""
    candidates = [
        Candidate(id=f"{prefix}-c{c}", text=f"chunk {c}", title="t", score=1.0)
        for c, _, _ in op.verdicts
    ]
    verdicts = [
        Verdict(ref=i, verdict="used" if used else "rejected", reason=REASONS[r])
        for i, (_, used, r) in enumerate(op.verdicts, 1)
    ]
    vector = [0.0] * EMBEDDER.dimension
    vector[op.type] = 1.0
    return Decision(
        id=f"{prefix}-d{n:03d}",
        question=f"question {n}",
        answer="an answer",
        abstained=False,
        sufficiency=Sufficiency.EXACT,
        confidence=0.9,
        mode="loop",
        rounds=[Round(1, ["q"], candidates, Judgement(verdicts=verdicts))],
        citations=[],
        cues=[],
        temporal=False,
        tokens=0,
        latency_ms=0.0,
        store_ms=0.0,
        llm_ms=0.0,
        model="test",
        created_at=op.at,
        outcome="correct" if op.correct else "pending",
        retrieval=Retrieval(
            query_type=f"{prefix}-t{op.type}", query_vector=vector, config=RECIPES[op.recipe]
        ),
    )


def assert_stats_hold_the_edges(store: GraphStore, chunk: str) -> None:
    """The chunk's stats node and TYPE_STATS edges say what its EVALUATED edges say."""
    edges = store.run_text(
        "MATCH (:Chunk {id: $id})<-[v:EVALUATED]-(d:Decision) RETURN d.id AS id, "
        "d.created_at AS at, d.outcome AS outcome, d.query_type AS type, v.verdict AS verdict, "
        "v.reason AS reason",
        {"id": chunk},
    ).records()
    found = store.run_text(
        "MATCH (:Chunk {id: $id})-[:HAS_STATS]->(s:EvidenceStats) RETURN s.incoming AS incoming, "
        "s.correct AS correct, s.used_correct AS used_correct, s.at AS at, "
        "s.decisions AS decisions, s.verdicts AS verdicts, s.reasons AS reasons, s.stale AS stale",
        {"id": chunk},
    ).records()
    if not edges:
        assert not found or found[0]["incoming"] == 0
        return
    correct = sorted(
        (e for e in edges if e["outcome"] == "correct"),
        key=lambda e: (e["at"], e["id"]),
        reverse=True,
    )
    # the window: the newest correct evaluations, at least WINDOW (or all), at most CAPACITY
    held = len(found[0]["at"]) if found else 0
    assert min(len(correct), WINDOW) <= held <= CAPACITY
    window = correct[:held]
    assert found == [
        {
            "incoming": len(edges),
            "correct": len(correct),
            "used_correct": sum(e["verdict"] == "used" for e in correct),
            "at": [e["at"] for e in window],
            "decisions": [e["id"] for e in window],
            "verdicts": [e["verdict"] for e in window],
            "reasons": [e["reason"] or "" for e in window],
            "stale": None,
        }
    ]
    by_type = Counter((e["type"], e["verdict"] == "rejected") for e in correct)
    typed = store.run_text(
        "MATCH (:Chunk {id: $id})<-[t:TYPE_STATS]-(q:QueryType) WHERE t.correct > 0 "
        "RETURN q.id AS type, t.correct AS correct, t.rejected AS rejected",
        {"id": chunk},
    ).records()
    assert {r["type"]: (r["correct"], r["rejected"]) for r in typed} == {
        t: (by_type[(t, True)] + by_type[(t, False)], by_type[(t, True)])
        for t in {t for t, _ in by_type}
    }


def assert_fast_equals_traversal(store: GraphStore, prefix: str, *, reads: bool) -> None:
    """The stats hold the edges; with ``reads``, every fast read equals the traversal's."""
    chunks = [f"{prefix}-c{c}" for c in range(CHUNKS)]
    for chunk in chunks:
        assert_stats_hold_the_edges(store, chunk)
    if not reads:
        return
    for options in OPTIONS:
        fast = evidence_profiles(store, chunks, options)
        assert fast == traversed_profiles(store, chunks, options)
    for planner, t in itertools.product(PLANNER, range(TYPES)):
        qt = f"{prefix}-t{t}"
        assert excluded_evidence(store, chunks, qt, planner) == traversed_exclusions(
            store, chunks, qt, planner
        )
    for t in range(TYPES):
        qt = f"{prefix}-t{t}"
        assert recipe_stats(store, qt) == traversed_recipe_stats(store, qt)


@pytest.fixture
def small_window(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stats, "WINDOW", WINDOW)
    monkeypatch.setattr(stats, "CAPACITY", CAPACITY)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(step, min_size=12, max_size=40))
@example(  # a window left short of the correct ones; an older one comes in, two more go
    steps=[
        *(
            Decide(((0, i % 2 == 0, i % len(REASONS)),), at=i, type=0, correct=False)
            for i in range(8)
        ),
        *(Feedback(i, newest=False, correct=True) for i in range(1, 8)),
        Feedback(0, newest=True, correct=False),
        Feedback(0, newest=False, correct=True),
        Feedback(1, newest=True, correct=False),
        Feedback(2, newest=True, correct=False),
    ]
)
def test_fast_profiles_equal_the_traversal(
    store: GraphStore, small_window: None, steps: list[Decide | Feedback | Prune]
) -> None:
    prefix = uuid.uuid4().hex[:12]  # every example writes its own chunks, types, decisions
    vector = [1.0] + [0.0] * (EMBEDDER.dimension - 1)
    store.write_rows(
        "contract/merge_chunks",
        [
            {"id": f"{prefix}-c{c}", "text": f"chunk {c}", "position": c, "embedding": vector}
            for c in range(CHUNKS)
        ],
    )
    written: list[str] = []
    for i, op in enumerate(steps, 1):
        if isinstance(op, Decide):
            d = decision(prefix, len(written), op)
            write_decision(store, d, agent_model="test", prompt_version="test")
            written.append(d.id)
        elif isinstance(op, Feedback) and written:
            n = op.decision % len(written)
            record_feedback(store, written[-1 - n if op.newest else n], correct=op.correct)
        elif isinstance(op, Prune):
            prune_evaluations(store, op.keep)
        assert_fast_equals_traversal(store, prefix, reads=i % 4 == 0 or i == len(steps))


def test_a_store_written_before_the_stats_gets_them(store: GraphStore) -> None:
    prefix = uuid.uuid4().hex[:12]
    vector = [1.0] + [0.0] * (EMBEDDER.dimension - 1)
    store.write_rows(
        "contract/merge_chunks",
        [
            {"id": f"{prefix}-c{c}", "text": "t", "position": c, "embedding": vector}
            for c in range(2)
        ],
    )
    for n in range(3):
        op = Decide(((0, n % 2 == 0, n), (1, False, 0)), at=n, type=0, correct=False)
        write_decision(store, decision(prefix, n, op), agent_model="test", prompt_version="test")
        record_feedback(store, f"{prefix}-d{n:03d}", correct=True)
    expected = traversed_profiles(store, [f"{prefix}-c0", f"{prefix}-c1"])
    assert expected[f"{prefix}-c0"].evaluated == 3
    # an older store: no stats, no indexed query types (a test-only rewrite of history)
    store._execute(
        "MATCH (s:EvidenceStats) DETACH DELETE s WITH count(*) AS n "
        "MATCH (:QueryType)-[t:TYPE_STATS]->() DELETE t",
        {},
        write=True,
    )
    store._execute(
        "MATCH (t:QueryType) SET t.embedding = null, t.recipes = null, "
        "t.recipe_support = null, t.recipe_correct = null",
        {},
        write=True,
    )
    assert evidence_profiles(store, [f"{prefix}-c0"]) == {}
    assert recipe_stats(store, f"{prefix}-t0") == []
    assert stats.ensure_stats(store)
    assert evidence_profiles(store, [f"{prefix}-c0", f"{prefix}-c1"]) == expected
    recipes = recipe_stats(store, f"{prefix}-t0")
    assert [(r.config, r.support, r.correct) for r in recipes] == [("default", 3, 3)]
    assert recipes == traversed_recipe_stats(store, f"{prefix}-t0")
    assert not stats.ensure_stats(store)  # once
    found = store.vector_search("QueryType", vector, 1)
    assert found and found[0].id == f"{prefix}-t0"


def test_a_chunk_deleted_and_written_again_starts_over(store: GraphStore) -> None:
    prefix = uuid.uuid4().hex[:12]
    vector = [1.0] + [0.0] * (EMBEDDER.dimension - 1)
    row = {"id": f"{prefix}-c0", "text": "t", "position": 0, "embedding": vector}
    store.write_rows("contract/merge_chunks", [row])
    for n in range(2):
        op = Decide(((0, True, 0),), at=n, type=0, correct=True)
        write_decision(store, decision(prefix, n, op), agent_model="test", prompt_version="test")
    assert evidence_profiles(store, [row["id"]])[row["id"]].evaluated == 2
    # a changed document replaces its chunks: the old one goes with its edges
    store._execute("MATCH (c:Chunk {id: $id}) DETACH DELETE c", {"id": row["id"]}, write=True)
    store.write_rows("contract/merge_chunks", [row])
    assert evidence_profiles(store, [row["id"]]) == {}
    op = Decide(((0, False, 2),), at=5, type=0, correct=True)
    write_decision(store, decision(prefix, 2, op), agent_model="test", prompt_version="test")
    again = evidence_profiles(store, [row["id"]])
    assert again == traversed_profiles(store, [row["id"]])
    assert (again[row["id"]].evaluated, again[row["id"]].incoming) == (1, 1)
    # pruning sweeps stats nodes whose chunk is gone
    store._execute("MATCH (c:Chunk {id: $id}) DETACH DELETE c", {"id": row["id"]}, write=True)
    prune_evaluations(store, 1)
    left = store.run_text(
        "MATCH (s:EvidenceStats {id: $id}) RETURN count(s) AS n", {"id": row["id"]}
    ).records()
    assert left == [{"n": 0}]
