"""Benchmark the reasoning graph at scale: evidence profiles, the planner, query types,
the writes that keep the evidence stats, and pruning.

Builds a synthetic reasoning graph in a fresh store for each edge count: ``--chunks``
Chunk nodes and decisions of 20 ``EVALUATED`` edges each (created_at increasing,
outcome ~70% correct / 20% incorrect / 10% pending, 20 query types), whose chunks are
drawn from a Zipf-like distribution (a few chunks are hot), with a per-chunk bias
towards "used" or "rejected" and reasons from a small pool; each decision also gets a
``Query`` node, ``RETRIEVED_VIA {config}`` and ``OF_TYPE`` to its ``QueryType``. The
decisions are bulk-loaded, then the evidence stats are built from the edges (what an
older store gets once). Then it times (p50/p95/max over ``--reps`` after a warm-up) the
evidence profiles of 20 uniform and 20 hot candidates, the planner's exclusions for 40
candidates and its configuration read, and the query-type assignment; the same profiles
and exclusions by full traversal (the definition; ``--walk-reps``); the writes that keep
the stats (``--writes`` decisions written, marked correct, then flipped to incorrect);
checks that every profile of a sample equals the traversal's; prunes to the
``--prune-keep`` newest evaluations per chunk and does it all again. The growth check
(``--growth``) loads a scaled-down graph (``--growth-chunks``) at each size and times
the reads only. Runs on FalkorDB Lite, and on Neo4j too when ``GRAPHMIND_BENCH_NEO4J_URI``
is set (that database's GraphMind nodes and indexes are deleted). Prints tables beside
the numbers measured before the stats (``OLD``), or with ``--json`` one JSON object;
asserts nothing.

    .venv/bin/python scripts/bench_profiles.py [--edges 100000 1000000] [--chunks 10000]
        [--reps 200] [--seed 7] [--prune-keep 50] [--growth 100000 1000000 10000000]
        [--growth-chunks 2000] [--store DIR] [--quick] [--json]
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import math
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
from rich.console import Console
from rich.table import Table

from graphmind.core.decision import Candidate, Decision, Judgement, Retrieval, Round, Sufficiency
from graphmind.core.decision import Verdict as JudgeVerdict
from graphmind.embed.spec import EmbedderSpec
from graphmind.memory.decisions import write_decision
from graphmind.memory.feedback import record_feedback
from graphmind.memory.planner import (
    PlannerOptions,
    excluded_evidence,
    plan_retrieval,
    traversed_exclusions,
    traversed_recipe_stats,
)
from graphmind.memory.profiles import evidence_profiles, traversed_profiles
from graphmind.memory.prune import prune_evaluations
from graphmind.memory.querytypes import assign_query_type
from graphmind.memory.stats import rebuild_stats
from graphmind.store.base import GraphStore

SPEC = EmbedderSpec("hash", "hash-384", 384)  # only query-type centroids carry vectors
PER_DECISION = 20
QUERY_TYPES = 20
AGENT = "agent-bench"
T0_MS = 1_700_000_000_000  # created_at of the first decision; one minute apart
OUTCOMES = (("correct", 0.7), ("incorrect", 0.2), ("pending", 0.1))
CONFIGS = (("default", 0.55), ("narrow", 0.15), ("no-ppr", 0.15), ("chunks-only", 0.15))
USED_REASONS = (
    "states the answer directly",
    "names the director",
    "gives the birth date",
    "confirms the place",
)
REJECTED_REASONS = (
    "another movie",
    "wrong year",
    "a different person with the same name",
    "off topic",
    "mentions the entity but not the relation",
    "too vague",
)
WORDS = ("the", "film", "director", "was", "born", "in", "city", "year", "award", "studio", "novel")
CHUNK_BATCH = 5000
SAMPLE = 500  # chunks whose profiles are checked against the traversal and across pruning
HOT_SHARE = 0.01  # hot candidates come from this share of the most evaluated chunks

# What the same runs measured when every read walked all incoming EVALUATED edges (p50,
# p95 in ms; a loaded 2-core machine): profiles uniform, profiles hot, exclusions.
OLD: dict[tuple[str, int], dict[str, tuple[float, float]]] = {
    ("FalkorDB Lite", 100_000): {
        "profiles_uniform": (2.8, 8.3),
        "profiles_hot": (58.8, 112),
        "exclusions": (27.8, 59.7),
    },
    ("Neo4j", 100_000): {
        "profiles_uniform": (4.8, 9.1),
        "profiles_hot": (33.3, 52.3),
        "exclusions": (16.5, 35.3),
    },
    ("FalkorDB Lite", 1_000_000): {
        "profiles_uniform": (12.4, 67.6),
        "profiles_hot": (404, 641),
        "exclusions": (318, 384),
        "configs": (21.1, 34.6),  # by traversal of the type's decisions, before recipe counts
    },
    ("Neo4j", 1_000_000): {
        "profiles_uniform": (11.1, 33.9),
        "profiles_hot": (233, 454),
        "exclusions": (165, 239),
        "configs": (12.2, 21.2),
    },
}
READS = ("profiles_uniform", "profiles_hot", "exclusions", "query_type", "configs", "floor")

Say = Callable[[Any], None]


# -- the synthetic graph ---------------------------------------------------------------


@dataclass
class Workload:
    """One synthetic reasoning graph: its chunks and types, and its decisions drawn on
    demand (so ten million edges never sit in memory at once)."""

    edges: int
    chunk_ids: list[str]
    chunk_rows: list[dict[str, Any]]
    type_rows: list[dict[str, Any]]
    popularity: list[str]  # chunk ids, most popular first (the Zipf ranks)
    cum_weights: list[float]
    seed: int
    p_used: dict[str, float]
    pet_reason: dict[str, int]
    in_degree: Counter[str] = field(default_factory=Counter)  # filled as decisions are drawn

    @property
    def decisions(self) -> int:
        return self.edges // PER_DECISION

    def zipf_chunks(self, rng: random.Random, k: int) -> list[str]:
        """``k`` distinct chunks drawn from the skewed distribution."""
        picked: dict[str, None] = {}
        while len(picked) < k:
            for c in rng.choices(self.popularity, cum_weights=self.cum_weights, k=k):
                picked.setdefault(c, None)
        return list(picked)[:k]

    def hot(self) -> list[str]:
        """The most evaluated chunks (the top ``HOT_SHARE``, at least 20)."""
        n = max(PER_DECISION, int(len(self.chunk_ids) * HOT_SHARE))
        return [c for c, _ in self.in_degree.most_common(n)]

    def verdict(self, rng: random.Random, chunk: str) -> tuple[str, str]:
        if rng.random() < self.p_used[chunk]:
            return "used", rng.choice(USED_REASONS)
        pet = self.pet_reason[chunk] if rng.random() < 0.6 else rng.randrange(len(REJECTED_REASONS))
        return "rejected", REJECTED_REASONS[pet]

    def decision_rows(self) -> Iterator[dict[str, Any]]:
        """The decisions, one row each with its 20 evaluations (counted in ``in_degree``)."""
        rng = random.Random(self.seed + 3)
        self.in_degree.clear()  # the same decisions for every store
        outcomes = [o for o, _ in OUTCOMES]
        outcome_weights = [w for _, w in OUTCOMES]
        configs = [c for c, _ in CONFIGS]
        config_weights = [w for _, w in CONFIGS]
        for i in range(self.decisions):
            qt = rng.randrange(QUERY_TYPES)
            evaluated = []
            for c in self.zipf_chunks(rng, PER_DECISION):
                self.in_degree[c] += 1
                verdict, reason = self.verdict(rng, c)
                evaluated.append(
                    {
                        "chunk": c,
                        "verdict": verdict,
                        "reason": reason,
                        "step": rng.randint(1, 3),
                        "delta": round(rng.uniform(-0.3, 0.3), 2),
                    }
                )
            config = rng.choices(configs, weights=config_weights)[0]
            yield {
                "id": f"decision-{i:08d}",
                "query_id": f"query-{i:08d}",
                "question": f"synthetic question {i} of template {qt}",
                "answer": f"answer {i}",
                "outcome": rng.choices(outcomes, weights=outcome_weights)[0],
                "confidence": round(rng.uniform(0.3, 1.0), 2),
                "query_type": self.type_rows[qt]["id"],
                "created_at": T0_MS + i * 60_000,
                "config": config,
                "filters": f"config={config}; k=20",
                "evaluated": evaluated,
            }


def synthesize(edges: int, chunks: int, seed: int, zipf: float) -> Workload:
    """The chunks and types of a graph of ``edges`` EVALUATED edges over ``chunks``."""
    rng = random.Random(seed)
    chunk_ids = [f"chunk-{i:06d}" for i in range(chunks)]
    chunk_rows = [
        {"id": c, "text": " ".join(rng.choices(WORDS, k=40)).capitalize() + "."} for c in chunk_ids
    ]
    popularity = chunk_ids[:]
    rng.shuffle(popularity)
    type_rows = [
        {
            "id": f"qt-{t:02d}",
            "label": f"synthetic question template {t}",
            "centroid": unit(rng, SPEC.dimension),
            "count": edges // PER_DECISION // QUERY_TYPES,
            "created_at": T0_MS,
        }
        for t in range(QUERY_TYPES)
    ]
    return Workload(
        edges,
        chunk_ids,
        chunk_rows,
        type_rows,
        popularity,
        list(itertools.accumulate(1.0 / (r + 1) ** zipf for r in range(chunks))),
        seed,
        {c: rng.betavariate(1.2, 1.5) for c in chunk_ids},  # per-chunk verdict bias
        {c: rng.randrange(len(REJECTED_REASONS)) for c in chunk_ids},
    )


def unit(rng: random.Random, dim: int) -> list[float]:
    v = [rng.gauss(0.0, 1.0) for _ in range(dim)]
    norm = math.sqrt(sum(x * x for x in v))
    return [x / norm for x in v]


# -- loading -----------------------------------------------------------------------------


def load(store: GraphStore, workload: Workload, batch: int, say: Say) -> dict[str, float]:
    """Write the workload with batched UNWIND queries (schema first, not timed), then
    build the evidence stats from the edges; seconds per stage."""
    store.ensure_schema(SPEC)
    stages: dict[str, float] = {}
    t0 = time.perf_counter()
    store.write_rows("bench/profiles_chunks", workload.chunk_rows, batch_size=CHUNK_BATCH)
    store.write_rows(
        "bench/profiles_query_types",
        workload.type_rows,
        batch_size=len(workload.type_rows),
        params={"agent": AGENT},
    )
    stages["chunks, query types"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    every = max(1, workload.decisions // 10 // batch) * batch  # progress about every 10%
    rows: list[dict[str, Any]] = []
    done = 0
    for row in workload.decision_rows():
        rows.append(row)
        if len(rows) == batch:
            store.write_rows("bench/profiles_decisions", rows, params={"agent": AGENT})
            done += len(rows)
            rows = []
            if done % every == 0:
                rate = done * PER_DECISION / (time.perf_counter() - t0)
                say(f"  {done:,}/{workload.decisions:,} decisions, {rate:,.0f} edges/s")
    if rows:
        store.write_rows("bench/profiles_decisions", rows, params={"agent": AGENT})
    stages["decisions and their edges"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    rebuild_stats(store)
    stages["evidence stats from the edges"] = time.perf_counter() - t0
    return stages


# -- timing ------------------------------------------------------------------------------


@dataclass
class Latency:
    """Latencies of one query, in seconds, with the mean number of items it returned."""

    key: str
    name: str
    samples: list[float]
    items: float

    def pct(self, q: float) -> float:
        ordered = sorted(self.samples)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "p50_ms": round(self.pct(0.5) * 1000, 2),
            "p95_ms": round(self.pct(0.95) * 1000, 2),
            "max_ms": round(max(self.samples) * 1000, 2),
            "reps": len(self.samples),
            "items": round(self.items, 1),
        }


def timed(key: str, name: str, call: Callable[[int], int], reps: int, warmup: int) -> Latency:
    """Run ``call(i)`` (returning how many items it found) ``warmup`` times untimed,
    then ``reps`` times timed."""
    for i in range(warmup):
        call(i)
    samples, items = [], []
    for i in range(reps):
        t0 = time.perf_counter()
        items.append(call(warmup + i))
        samples.append(time.perf_counter() - t0)
    return Latency(key, name, samples, statistics.mean(items))


@dataclass
class Candidates:
    """Pre-drawn inputs, one per repetition, so every backend sees the same ones."""

    uniform: list[list[str]]
    hot: list[list[str]]
    planner: list[list[str]]
    types: list[str]
    vectors: list[list[float]]


def draw(workload: Workload, n: int, seed: int) -> Candidates:
    rng = random.Random(seed + 1)
    hot = workload.hot()
    types = [rng.choice(workload.type_rows) for _ in range(n)]
    return Candidates(
        uniform=[rng.sample(workload.chunk_ids, PER_DECISION) for _ in range(n)],
        hot=[rng.sample(hot, PER_DECISION) for _ in range(n)],
        planner=[workload.zipf_chunks(rng, 2 * PER_DECISION) for _ in range(n)],
        types=[str(t["id"]) for t in types],
        vectors=[noisy(rng, t["centroid"]) for t in types],
    )


def noisy(rng: random.Random, centroid: Sequence[float]) -> list[float]:
    return [x + rng.gauss(0.0, 0.02) for x in centroid]


def read_latencies(
    store: GraphStore, cands: Candidates, reps: int, warmup: int, walk_reps: int
) -> list[Latency]:
    """The reads the ask loop makes, and the same profiles and exclusions by traversal."""
    n = len(cands.uniform)
    options = PlannerOptions()
    out = [
        timed(
            "floor",
            "RETURN 1 (the round trip alone: this machine's noise floor)",
            lambda i: len(store.run_text("RETURN 1 AS one").rows),
            reps,
            warmup,
        ),
        timed(
            "profiles_uniform",
            "evidence_profiles, 20 uniform candidates",
            lambda i: len(evidence_profiles(store, cands.uniform[i % n])),
            reps,
            warmup,
        ),
        timed(
            "profiles_hot",
            "evidence_profiles, 20 hot candidates",
            lambda i: len(evidence_profiles(store, cands.hot[i % n])),
            reps,
            warmup,
        ),
        timed(
            "exclusions",
            "excluded_evidence, 40 candidates (Zipf), one type",
            lambda i: len(
                excluded_evidence(store, cands.planner[i % n], cands.types[i % n], options)
            ),
            reps,
            warmup,
        ),
        timed(
            "query_type",
            f"assign_query_type ({QUERY_TYPES} types, dim {SPEC.dimension}, vector index)",
            lambda i: int(not assign_query_type(store, f"q{i}", cands.vectors[i % n]).new),
            reps,
            warmup,
        ),
        timed(
            "configs",
            "plan_retrieval (configurations of one type)",
            lambda i: sum(
                s.support > 0
                for s in plan_retrieval(store, cands.types[i % n], f"q{i}", options).stats
            ),
            reps,
            warmup,
        ),
    ]
    if walk_reps:
        out += [
            timed(
                "walk_profiles_hot",
                "traversed_profiles, 20 hot candidates (every incoming edge)",
                lambda i: len(traversed_profiles(store, cands.hot[i % n])),
                walk_reps,
                1,
            ),
            timed(
                "walk_exclusions",
                "traversed_exclusions, 40 candidates (every incoming edge)",
                lambda i: len(
                    traversed_exclusions(store, cands.planner[i % n], cands.types[i % n], options)
                ),
                walk_reps,
                1,
            ),
            timed(
                "walk_configs",
                "traversed_recipe_stats (every decision of one type)",
                lambda i: len(traversed_recipe_stats(store, cands.types[i % n])),
                walk_reps,
                1,
            ),
        ]
    return out


def write_latencies(store: GraphStore, workload: Workload, n: int, seed: int) -> list[Latency]:
    """The writes that keep the stats: ``n`` decisions of 20 Zipf-drawn chunks written
    (pending), marked correct (their evaluations enter the windows), then marked
    incorrect (they leave them; a hot chunk's full window is refilled by traversal)."""
    rng = random.Random(seed + 4)
    vector = workload.type_rows[0]["centroid"]
    decisions = []
    for i in range(n):
        chunks = workload.zipf_chunks(rng, PER_DECISION)
        verdicts = [workload.verdict(rng, c) for c in chunks]
        decisions.append(
            Decision(
                id=f"bench-write-{i:05d}",
                question=f"written question {i}",
                answer="an answer",
                abstained=False,
                sufficiency=Sufficiency.EXACT,
                confidence=0.9,
                mode="loop",
                rounds=[
                    Round(
                        1,
                        ["q"],
                        [Candidate(id=c, text="", title="", score=1.0) for c in chunks],
                        Judgement(
                            verdicts=[
                                JudgeVerdict(ref=k, verdict=v, reason=r)  # type: ignore[arg-type]
                                for k, (v, r) in enumerate(verdicts, 1)
                            ]
                        ),
                    )
                ],
                citations=[],
                cues=[],
                temporal=False,
                tokens=0,
                latency_ms=0.0,
                store_ms=0.0,
                llm_ms=0.0,
                model="bench",
                created_at=T0_MS + (workload.decisions + i) * 60_000,
                retrieval=Retrieval(
                    query_type=str(workload.type_rows[0]["id"]), query_vector=vector
                ),
            )
        )

    def write(i: int) -> int:
        write_decision(store, decisions[i], agent_model="bench", prompt_version="bench")
        return PER_DECISION

    def mark(correct: bool) -> Callable[[int], int]:
        return lambda i: int(record_feedback(store, decisions[i].id, correct=correct).f1 is None)

    return [
        timed("write_decision", "write_decision, 20 evaluations (pending)", write, n, 0),
        timed(
            "feedback_correct",
            "record_feedback: pending -> correct (20 windows take it)",
            mark(True),
            n,
            0,
        ),
        timed(
            "feedback_incorrect",
            "record_feedback: correct -> incorrect (20 windows give it back)",
            mark(False),
            n,
            0,
        ),
    ]


def differing(store: GraphStore, ids: Sequence[str]) -> tuple[int, int]:
    """(profiles, of them different from the traversal's) over ``ids``, 20 at a time."""
    total = diff = 0
    for start in range(0, len(ids), PER_DECISION):
        batch = ids[start : start + PER_DECISION]
        fast, walked = evidence_profiles(store, batch), traversed_profiles(store, batch)
        total += len(walked)
        diff += sum(fast.get(i) != p for i, p in walked.items()) + len(set(fast) - set(walked))
    return total, diff


# -- one backend, one size ---------------------------------------------------------------


@dataclass
class Result:
    """Everything measured on one store at one size."""

    store: str
    edges: int
    max_in_degree: int
    load_s: dict[str, float]
    reads: list[Latency]
    writes: list[Latency] = field(default_factory=list)
    checked: tuple[int, int] = (0, 0)  # profiles compared with the traversal, different
    prune: dict[str, Any] = field(default_factory=dict)
    reads_pruned: list[Latency] = field(default_factory=list)
    checked_pruned: tuple[int, int] = (0, 0)

    def read(self, key: str, pruned: bool = False) -> Latency | None:
        return next(
            (x for x in (self.reads_pruned if pruned else self.reads) if x.key == key), None
        )

    def as_dict(self) -> dict[str, Any]:
        old = OLD.get((self.store, self.edges), {})
        return {
            "store": self.store,
            "edges": self.edges,
            "max_in_degree": self.max_in_degree,
            "load_s": {k: round(v, 1) for k, v in self.load_s.items()},
            "queries": {x.key: x.as_dict() for x in [*self.reads, *self.writes]},
            "old": {k: {"p50_ms": v[0], "p95_ms": v[1]} for k, v in old.items()},
            "equal_to_traversal": {"profiles": self.checked[0], "different": self.checked[1]},
            "prune": self.prune,
            "queries_pruned": {x.key: x.as_dict() for x in self.reads_pruned},
            "equal_to_traversal_pruned": {
                "profiles": self.checked_pruned[0],
                "different": self.checked_pruned[1],
            },
        }


def evaluated_count(store: GraphStore) -> int:
    rows = store.run_text("MATCH ()-[v:EVALUATED]->() RETURN count(v) AS n").records()
    return int(rows[0]["n"])


def bench_store(
    say: Say, backend: str, store: GraphStore, workload: Workload, args: argparse.Namespace
) -> Result:
    """Load, build the stats, time reads and writes, check against the traversal, prune,
    time and check again."""
    label = f"{backend}, {workload.edges:,} edges"
    say(f"[bold]{label}[/]: loading …")
    stages = load(store, workload, args.batch, say)
    say(load_table(label, stages, workload))
    cands = draw(workload, args.reps, args.seed)
    say(f"timing {args.reps} repetitions of each read …")
    result = Result(
        backend,
        workload.edges,
        max(workload.in_degree.values()),
        stages,
        read_latencies(store, cands, args.reps, args.warmup, args.walk_reps),
    )
    sample = random.Random(args.seed + 2).sample(workload.chunk_ids, SAMPLE)
    checked = [*workload.hot(), *sample]
    result.checked = differing(store, checked)
    say(latency_table(f"reads ({label}), ms", result, result.reads))
    if args.writes:
        result.writes = write_latencies(store, workload, args.writes, args.seed)
        say(latency_table(f"writes keeping the stats ({label}), ms", result, result.writes))
    t0 = time.perf_counter()
    report = prune_evaluations(store, keep=args.prune_keep)
    result.prune = {
        "keep": args.prune_keep,
        "chunks": report.items,
        "deleted": report.deleted,
        "left": evaluated_count(store),
        "seconds": round(time.perf_counter() - t0, 1),
    }
    say(
        f"prune --keep {args.prune_keep}: {report.deleted:,} edges of {report.items:,} chunks "
        f"deleted in {result.prune['seconds']} s (stats recomputed), "
        f"{result.prune['left']:,} left"
    )
    result.reads_pruned = read_latencies(store, cands, args.reps, args.warmup, 0)
    result.checked_pruned = differing(store, checked)
    say(latency_table(f"reads after pruning ({label}), ms", result, result.reads_pruned))
    return result


def load_table(label: str, stages: dict[str, float], workload: Workload) -> Table:
    degrees = sorted(workload.in_degree.values())
    table = Table("stage", "seconds", title=f"load ({label})")
    for stage, seconds in stages.items():
        table.add_row(stage, f"{seconds:.1f}")
    table.add_row(
        "evaluations per chunk: p50 / p99 / max",
        f"{degrees[len(degrees) // 2]} / {degrees[int(len(degrees) * 0.99)]} / {degrees[-1]}",
    )
    return table


def latency_table(title: str, result: Result, latencies: list[Latency]) -> Table:
    old = OLD.get((result.store, result.edges), {})
    table = Table("query", "p50", "p95", "max", "items", "before: p50 / p95", title=title)
    for lat in latencies:
        before = old.get(lat.key)
        table.add_row(
            lat.name,
            ms(lat.pct(0.5)),
            ms(lat.pct(0.95)),
            ms(max(lat.samples)),
            f"{lat.items:.1f}",
            "-" if before is None else f"{before[0]:g} / {before[1]:g}",
        )
    return table


def ms(seconds: float) -> str:
    """Milliseconds, to 0.1 ms below 100 ms."""
    return f"{seconds * 1000:.1f}" if seconds < 0.1 else f"{seconds * 1000:.0f}"


def cell(lat: Latency | None) -> str:
    return "-" if lat is None else f"{ms(lat.pct(0.5))} / {ms(lat.pct(0.95))}"


# -- the stores --------------------------------------------------------------------------


@contextmanager
def falkordb_store(folder: Path, edges: int) -> Iterator[GraphStore]:
    from graphmind.store.falkordb import FalkorDBLiteStore

    store = FalkorDBLiteStore(str(folder / f"profiles-{edges}.db"))
    store.wipe()
    try:
        yield store
    finally:
        store.wipe()  # the next size gets the memory back
        store.close()


@contextmanager
def neo4j_store(uri: str) -> Iterator[GraphStore]:
    from graphmind.store.neo4j import Neo4jStore

    store = Neo4jStore(
        uri,
        user=os.environ.get("GRAPHMIND_BENCH_NEO4J_USER", "neo4j"),
        password=os.environ.get("GRAPHMIND_BENCH_NEO4J_PASSWORD"),
        database=os.environ.get("GRAPHMIND_BENCH_NEO4J_DATABASE"),
    )
    store.wipe()
    try:
        yield store
    finally:
        store.close()


def stores(
    folder: Path, edges: int, neo4j_uri: str | None, which: Sequence[str]
) -> Iterator[tuple[str, Any]]:
    if "falkordb" in which:
        yield "FalkorDB Lite", falkordb_store(folder, edges)
    if neo4j_uri and "neo4j" in which:
        yield "Neo4j", neo4j_store(neo4j_uri)


def growth(say: Say, args: argparse.Namespace, folder: Path, neo4j_uri: str | None) -> list[Result]:
    """The scaled-down run: each size loaded over ``--growth-chunks`` chunks, reads only."""
    out: list[Result] = []
    for edges in args.growth:
        workload = synthesize(edges, args.growth_chunks, args.seed, args.zipf)
        for backend, opened in stores(folder, edges, neo4j_uri, args.stores):
            with opened as store:
                label = f"growth: {backend}, {edges:,} edges over {args.growth_chunks:,} chunks"
                say(f"[bold]{label}[/]: loading …")
                stages = load(store, workload, args.batch, say)
                say(load_table(label, stages, workload))
                cands = draw(workload, args.growth_reps, args.seed)
                reads = read_latencies(
                    store, cands, args.growth_reps, args.warmup, min(args.walk_reps, 5)
                )
                result = Result(backend, edges, max(workload.in_degree.values()), stages, reads)
                result.checked = differing(store, workload.hot())
                out.append(result)
                say(latency_table(f"reads ({label}), ms", result, reads))
    return out


def summary(results: list[Result]) -> Table:
    table = Table(
        "store",
        "edges",
        "profiles uniform",
        "before",
        "profiles hot",
        "before",
        "exclusions",
        "before",
        "query type",
        "recipe counts",
        "before",
        "RETURN 1",
        "traversal hot (now)",
        "= traversal",
        "write / feedback p95",
        "hot, pruned",
        title="summary: p50 / p95 ms, the stats beside the numbers measured before them",
    )
    for r in results:
        old = OLD.get((r.store, r.edges), {})

        def before(key: str, old: dict[str, tuple[float, float]] = old) -> str:
            return f"{old[key][0]:g} / {old[key][1]:g}" if key in old else "-"

        writes = {w.key: w for w in r.writes}
        table.add_row(
            r.store,
            f"{r.edges:,}",
            cell(r.read("profiles_uniform")),
            before("profiles_uniform"),
            cell(r.read("profiles_hot")),
            before("profiles_hot"),
            cell(r.read("exclusions")),
            before("exclusions"),
            cell(r.read("query_type")),
            cell(r.read("configs")),
            before("configs"),
            cell(r.read("floor")),
            cell(r.read("walk_profiles_hot")),
            f"{r.checked[0] - r.checked[1]}/{r.checked[0]}",
            "-"
            if not writes
            else " / ".join(
                ms(writes[k].pct(0.95))
                for k in ("write_decision", "feedback_correct", "feedback_incorrect")
            ),
            cell(r.read("profiles_hot", pruned=True)),
        )
    return table


def growth_table(results: list[Result]) -> Table:
    table = Table(
        "store",
        "edges",
        "max evaluations of a chunk",
        *(f"{k} p95" for k in READS),
        "traversal hot p95",
        title="growth check: p95 ms by size (the reads do not walk the edges)",
    )
    for backend in dict.fromkeys(r.store for r in results):
        rows = [r for r in results if r.store == backend]
        for r in rows:
            table.add_row(
                r.store,
                f"{r.edges:,}",
                f"{r.max_in_degree:,}",
                *(ms(lat.pct(0.95)) if (lat := r.read(k)) else "-" for k in READS),
                ms(lat.pct(0.95)) if (lat := r.read("walk_profiles_hot")) else "-",
            )
        if len(rows) > 1:
            first, last = rows[0], rows[-1]
            table.add_row(
                backend,
                f"x{last.edges / first.edges:g}",
                f"x{last.max_in_degree / first.max_in_degree:.0f}",
                *(ratio(first.read(k), last.read(k)) for k in READS),
                ratio(first.read("walk_profiles_hot"), last.read("walk_profiles_hot")),
            )
    return table


def ratio(a: Latency | None, b: Latency | None) -> str:
    return "-" if a is None or b is None else f"x{b.pct(0.95) / a.pct(0.95):.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--edges", type=int, nargs="*", default=[100_000, 1_000_000])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--walk-reps", type=int, default=20, help="reps of the traversals")
    parser.add_argument("--writes", type=int, default=50, help="decisions written and flipped")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--zipf", type=float, default=1.0, help="skew of chunk popularity")
    parser.add_argument("--batch", type=int, default=500, help="decisions per write query")
    parser.add_argument("--prune-keep", type=int, default=50)
    parser.add_argument("--growth", type=int, nargs="*", default=[], help="edge counts")
    parser.add_argument("--growth-chunks", type=int, default=2_000)
    parser.add_argument("--growth-reps", type=int, default=100)
    parser.add_argument("--store", type=Path, help="folder for the stores (kept); else a temp dir")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 10k edges, 30 reps")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument(
        "--stores", nargs="+", choices=("falkordb", "neo4j"), default=["falkordb", "neo4j"]
    )
    args = parser.parse_args()
    # the traversal's collect() of CASE (nulls for other outcomes) makes Neo4j warn per call
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    if args.quick:
        args.edges, args.reps, args.warmup, args.walk_reps, args.writes = [10_000], 30, 5, 5, 10
    if args.chunks < SAMPLE or args.growth_chunks < PER_DECISION:
        parser.error(f"need at least {SAMPLE} chunks ({PER_DECISION} for the growth check)")
    if any(e < PER_DECISION for e in [*args.edges, *args.growth]):
        parser.error(f"need at least {PER_DECISION} edges")
    console = Console(width=max(Console().width, 170), stderr=args.json)
    say: Say = lambda m: console.print(m, highlight=False)  # noqa: E731
    neo4j_uri = os.environ.get("GRAPHMIND_BENCH_NEO4J_URI")
    setup = {
        "chunks": args.chunks,
        "per_decision": PER_DECISION,
        "query_types": QUERY_TYPES,
        "zipf": args.zipf,
        "reps": args.reps,
        "warmup": args.warmup,
        "seed": args.seed,
        "cpus": os.cpu_count(),
        "load_average": round(os.getloadavg()[0], 2),
        "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
    }
    say(f"bench_profiles: {json.dumps(setup)}")
    results: list[Result] = []
    grown: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="bench-profiles-") as tmp:
        folder = args.store or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for edges in args.edges:
            workload = synthesize(edges, args.chunks, args.seed, args.zipf)
            for backend, opened in stores(folder, edges, neo4j_uri, args.stores):
                with opened as store:
                    results.append(bench_store(say, backend, store, workload, args))
        grown = growth(say, args, folder, neo4j_uri)
    if not neo4j_uri:
        say(
            "Neo4j skipped: GRAPHMIND_BENCH_NEO4J_URI is not set (with _USER, _PASSWORD, "
            "_DATABASE; the database's GraphMind nodes and indexes are deleted)."
        )
    if results:
        say(summary(results))
    if grown:
        say(growth_table(grown))
    if args.json:
        print(
            json.dumps(
                {
                    "setup": setup,
                    "results": [r.as_dict() for r in results],
                    "growth": {
                        "chunks": args.growth_chunks,
                        "results": [r.as_dict() for r in grown],
                    },
                }
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
