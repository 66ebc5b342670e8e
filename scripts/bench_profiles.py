"""Benchmark the reasoning graph at scale: evidence profiles, the planner and pruning.

Builds a synthetic reasoning graph in a fresh store for each edge count: ``--chunks``
Chunk nodes and decisions of 20 ``EVALUATED`` edges each (created_at increasing,
outcome ~70% correct / 20% incorrect / 10% pending, 20 query types), whose chunks are
drawn from a Zipf-like distribution (a few chunks are hot), with a per-chunk bias
towards "used" or "rejected" and reasons from a small pool; each decision also gets a
``Query`` node, ``RETRIEVED_VIA {config}`` and ``OF_TYPE`` to its ``QueryType``. Then
it times (p50/p95/max over ``--reps`` after a warm-up) the evidence-profile query for
20 uniform and 20 hot candidates, the planner's exclusion and configuration queries and
the query-type read, prunes the graph to the ``--prune-keep`` newest evaluations per
chunk, and reports what pruning did to the profiles of a fixed sample of chunks.
Runs on FalkorDB Lite, and on Neo4j too when ``GRAPHMIND_BENCH_NEO4J_URI`` is set (that
database's GraphMind nodes and indexes are deleted). Prints tables; asserts nothing.

    .venv/bin/python scripts/bench_profiles.py [--edges 100000 1000000] [--chunks 10000]
        [--reps 200] [--seed 7] [--prune-keep 50] [--store DIR] [--quick]
"""

from __future__ import annotations

import argparse
import itertools
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

from graphmind.embed.spec import EmbedderSpec
from graphmind.memory.planner import PlannerOptions, excluded_evidence, plan_retrieval
from graphmind.memory.profiles import EvidenceProfile, evidence_profiles
from graphmind.memory.prune import prune_evaluations
from graphmind.memory.querytypes import assign_query_type
from graphmind.store.base import GraphStore

SPEC = EmbedderSpec("hash", "hash-384", 384)  # no vectors are written; only the schema
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
SAMPLE = 500  # chunks whose profiles are compared before and after pruning
HOT_SHARE = 0.01  # hot candidates come from this share of the most evaluated chunks


# -- the synthetic graph ---------------------------------------------------------------


@dataclass
class Workload:
    """The rows of one synthetic reasoning graph and what the measurements draw from."""

    chunk_ids: list[str]
    chunk_rows: list[dict[str, Any]]
    type_rows: list[dict[str, Any]]
    decision_rows: list[dict[str, Any]]
    in_degree: Counter[str]
    popularity: list[str]  # chunk ids, most popular first (the Zipf ranks)
    cum_weights: list[float]
    seconds: float

    @property
    def edges(self) -> int:
        return sum(len(r["evaluated"]) for r in self.decision_rows)

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


def synthesize(edges: int, chunks: int, seed: int, zipf: float) -> Workload:
    """The rows for ``edges`` EVALUATED edges (``edges // 20`` decisions) over ``chunks``."""
    started = time.perf_counter()
    rng = random.Random(seed)
    chunk_ids = [f"chunk-{i:06d}" for i in range(chunks)]
    chunk_rows = [
        {"id": c, "text": " ".join(rng.choices(WORDS, k=40)).capitalize() + "."} for c in chunk_ids
    ]
    popularity = chunk_ids[:]
    rng.shuffle(popularity)
    cum_weights = list(itertools.accumulate(1.0 / (r + 1) ** zipf for r in range(chunks)))
    p_used = {c: rng.betavariate(1.2, 1.5) for c in chunk_ids}  # per-chunk verdict bias
    pet_reason = {c: rng.randrange(len(REJECTED_REASONS)) for c in chunk_ids}
    type_ids = [f"qt-{t:02d}" for t in range(QUERY_TYPES)]
    type_rows = [
        {
            "id": t,
            "label": f"synthetic question template {i}",
            "centroid": unit(rng, SPEC.dimension),
            "count": 0,
            "created_at": T0_MS,
        }
        for i, t in enumerate(type_ids)
    ]
    workload = Workload(
        chunk_ids, chunk_rows, type_rows, [], Counter(), popularity, cum_weights, 0.0
    )
    type_sizes = [0] * QUERY_TYPES
    outcomes = [o for o, _ in OUTCOMES]
    outcome_weights = [w for _, w in OUTCOMES]
    configs = [c for c, _ in CONFIGS]
    config_weights = [w for _, w in CONFIGS]
    for i in range(edges // PER_DECISION):
        qt = rng.randrange(QUERY_TYPES)
        type_sizes[qt] += 1
        evaluated = []
        for c in workload.zipf_chunks(rng, PER_DECISION):
            workload.in_degree[c] += 1
            if rng.random() < p_used[c]:
                verdict, reason = "used", rng.choice(USED_REASONS)
            else:
                verdict = "rejected"
                pet = pet_reason[c] if rng.random() < 0.6 else rng.randrange(len(REJECTED_REASONS))
                reason = REJECTED_REASONS[pet]
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
        workload.decision_rows.append(
            {
                "id": f"decision-{i:07d}",
                "query_id": f"query-{i:07d}",
                "question": f"synthetic question {i} of template {qt}",
                "answer": f"answer {i}",
                "outcome": rng.choices(outcomes, weights=outcome_weights)[0],
                "confidence": round(rng.uniform(0.3, 1.0), 2),
                "query_type": type_ids[qt],
                "created_at": T0_MS + i * 60_000,
                "config": config,
                "filters": f"config={config}; k=20",
                "evaluated": evaluated,
            }
        )
    for row, size in zip(type_rows, type_sizes, strict=True):
        row["count"] = size
    workload.seconds = time.perf_counter() - started
    return workload


def unit(rng: random.Random, dim: int) -> list[float]:
    v = [rng.gauss(0.0, 1.0) for _ in range(dim)]
    norm = math.sqrt(sum(x * x for x in v))
    return [x / norm for x in v]


# -- loading -----------------------------------------------------------------------------


@dataclass
class Load:
    """How long each stage of loading took."""

    stages: dict[str, tuple[int, float]] = field(default_factory=dict)  # rows, seconds

    @property
    def seconds(self) -> float:
        return sum(s for _, s in self.stages.values())


def load(
    store: GraphStore, workload: Workload, batch: int, progress: Callable[[str], None]
) -> Load:
    """Write the workload with batched UNWIND queries (schema first, not timed)."""
    store.ensure_schema(SPEC)
    result = Load()
    t0 = time.perf_counter()
    store.write_rows("bench/profiles_chunks", workload.chunk_rows, batch_size=CHUNK_BATCH)
    result.stages["Chunk nodes"] = (len(workload.chunk_rows), time.perf_counter() - t0)
    t0 = time.perf_counter()
    store.write_rows(
        "bench/profiles_query_types",
        workload.type_rows,
        batch_size=len(workload.type_rows),
        params={"agent": AGENT},
    )
    result.stages["QueryType nodes + Agent"] = (len(workload.type_rows), time.perf_counter() - t0)
    rows = workload.decision_rows
    step = max(batch, len(rows) // 10 // batch * batch)  # progress about every 10%
    t0 = time.perf_counter()
    for start in range(0, len(rows), step):
        store.write_rows(
            "bench/profiles_decisions",
            rows[start : start + step],
            batch_size=batch,
            params={"agent": AGENT},
        )
        done = min(len(rows), start + step)
        elapsed = time.perf_counter() - t0
        progress(
            f"  {done:,}/{len(rows):,} decisions, {done * PER_DECISION / elapsed:,.0f} edges/s"
        )
    result.stages["decisions (+ EVALUATED, DECIDED, Query, RETRIEVED_VIA, OF_TYPE)"] = (
        len(rows),
        time.perf_counter() - t0,
    )
    return result


# -- timing ------------------------------------------------------------------------------


@dataclass
class Latency:
    """Latencies of one query, in seconds, with the mean number of items it returned."""

    name: str
    samples: list[float]
    items: float

    def pct(self, q: float) -> float:
        ordered = sorted(self.samples)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    def cells(self) -> list[str]:
        return [
            f"{self.pct(0.5) * 1000:.1f}",
            f"{self.pct(0.95) * 1000:.1f}",
            f"{max(self.samples) * 1000:.1f}",
            f"{statistics.mean(self.samples) * 1000:.1f}",
            f"{self.items:.1f}",
        ]


def timed(name: str, call: Callable[[int], int], reps: int, warmup: int) -> Latency:
    """Run ``call(i)`` (returning how many items it found) ``warmup`` times untimed,
    then ``reps`` times timed."""
    for i in range(warmup):
        call(i)
    samples, items = [], []
    for i in range(reps):
        t0 = time.perf_counter()
        items.append(call(warmup + i))
        samples.append(time.perf_counter() - t0)
    return Latency(name, samples, statistics.mean(items))


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


def profile_latencies(
    store: GraphStore, cands: Candidates, reps: int, warmup: int, suffix: str = ""
) -> list[Latency]:
    n = len(cands.uniform)
    return [
        timed(
            f"evidence_profiles, 20 uniform candidates{suffix}",
            lambda i: len(evidence_profiles(store, cands.uniform[i % n])),
            reps,
            warmup,
        ),
        timed(
            f"evidence_profiles, 20 hot candidates{suffix}",
            lambda i: len(evidence_profiles(store, cands.hot[i % n])),
            reps,
            warmup,
        ),
    ]


def planner_latencies(
    store: GraphStore, cands: Candidates, reps: int, warmup: int
) -> list[Latency]:
    n = len(cands.types)
    options = PlannerOptions()
    return [
        timed(
            "excluded_evidence, 40 candidates (Zipf), one type",
            lambda i: len(
                excluded_evidence(store, cands.planner[i % n], cands.types[i % n], options)
            ),
            reps,
            warmup,
        ),
        timed(
            "plan_retrieval (configurations of one type)",
            lambda i: sum(
                s.support > 0
                for s in plan_retrieval(store, cands.types[i % n], f"q{i}", options).stats
            ),
            reps,
            warmup,
        ),
        timed(
            f"assign_query_type ({QUERY_TYPES} types, dim {SPEC.dimension})",
            lambda i: int(not assign_query_type(store, f"q{i}", cands.vectors[i % n]).new),
            reps,
            warmup,
        ),
    ]


# -- pruning and profile quality --------------------------------------------------------


@dataclass
class Quality:
    """How the sampled profiles changed with pruning."""

    profiled: int
    identical: float
    d_reliability: float
    d_rejected: float
    reason_changed: float
    lost: float


def profiles_of(store: GraphStore, ids: Sequence[str]) -> dict[str, EvidenceProfile]:
    out: dict[str, EvidenceProfile] = {}
    for start in range(0, len(ids), 50):
        out.update(evidence_profiles(store, ids[start : start + 50]))
    return out


def compare(
    before: dict[str, EvidenceProfile], after: dict[str, EvidenceProfile], ids: Sequence[str]
) -> Quality:
    ids = [i for i in ids if i in before]
    if not ids:
        return Quality(0, math.nan, math.nan, math.nan, math.nan, math.nan)
    same = rel = rej = reason = lost = 0.0
    for i in ids:
        b, a = before[i], after.get(i)
        if a is None:
            lost += 1
            continue
        same += a.text == b.text
        rel += abs(a.reliability - b.reliability)
        rej += abs(rejected_share(a) - rejected_share(b))
        reason += top_rejected(a) != top_rejected(b)
    kept = len(ids) - lost
    return Quality(
        len(ids),
        same / len(ids),
        rel / kept if kept else math.nan,
        rej / kept if kept else math.nan,
        reason / kept if kept else math.nan,
        lost / len(ids),
    )


def rejected_share(p: EvidenceProfile) -> float:
    return p.counts.get("rejected", 0) / p.sampled if p.sampled else 0.0


def top_rejected(p: EvidenceProfile) -> str | None:
    top = p.reasons.get("rejected") or []
    return top[0][0] if top else None


# -- one backend, one size ---------------------------------------------------------------


@dataclass
class Result:
    """Everything measured on one store at one size (for the summary)."""

    backend: str
    edges: int
    load: Load
    rss_mib: float | None
    file_mib: float | None
    latencies: list[Latency]
    prune_seconds: float
    deleted: int
    after: list[Latency]


def evaluated_count(store: GraphStore) -> int:
    rows = store.run_text("MATCH ()-[v:EVALUATED]->() RETURN count(v) AS n").records()
    return int(rows[0]["n"])


def bench_store(
    console: Console,
    backend: str,
    store: GraphStore,
    workload: Workload,
    args: argparse.Namespace,
    sizes: Callable[[], tuple[float | None, float | None, float | None]],
) -> Result:
    """Load, measure, prune, compare: one table per step."""
    label = f"{backend}, {workload.edges:,} edges"
    console.print(f"[bold]{label}[/]: loading …")
    loaded = load(store, workload, args.batch, lambda m: console.print(m, highlight=False))
    rss, snapshot, aof = sizes()
    table = Table("stage", "rows", "seconds", "rows/s", title=f"load ({label})")
    for stage, (rows, seconds) in loaded.stages.items():
        table.add_row(stage, f"{rows:,}", f"{seconds:.1f}", f"{rows / seconds:,.0f}")
    table.add_row(
        "total",
        f"{workload.edges:,} EVALUATED edges",
        f"{loaded.seconds:.1f}",
        f"{workload.edges / loaded.seconds:,.0f} edges/s",
    )
    console.print(table)
    degrees = sorted(workload.in_degree.values())
    facts = Table("measure", "value", title=f"graph and store ({label})")
    facts.add_row("EVALUATED edges in the store", f"{evaluated_count(store):,}")
    facts.add_row(
        "decisions (per query type)",
        f"{len(workload.decision_rows):,} ({len(workload.decision_rows) // QUERY_TYPES:,})",
    )
    facts.add_row(
        "chunks evaluated at least once",
        f"{len(degrees):,} of {len(workload.chunk_ids):,}",
    )
    facts.add_row(
        "evaluations per chunk: p50 / p99 / max",
        f"{degrees[len(degrees) // 2]} / {degrees[int(len(degrees) * 0.99)]} / {degrees[-1]}",
    )
    hot = workload.hot()
    facts.add_row(
        f"hot candidate pool: {len(hot)} most evaluated chunks",
        f"{workload.in_degree[hot[-1]]} to {workload.in_degree[hot[0]]} evaluations each",
    )
    facts.add_row("server RSS after load", "n/a (remote)" if rss is None else f"{rss:.0f} MiB")
    facts.add_row(
        "store file after SAVE (snapshot)",
        "n/a (remote)" if snapshot is None else f"{snapshot:.1f} MiB",
    )
    if aof is not None:
        facts.add_row("append-only files beside it", f"{aof:.1f} MiB")
    console.print(facts)

    cands = draw(workload, args.reps, args.seed)
    console.print(f"timing {args.reps} repetitions of each query …")
    latencies = profile_latencies(store, cands, args.reps, args.warmup)
    latencies += planner_latencies(store, cands, args.reps, args.warmup)
    console.print(latency_table(f"query latency ({label}), ms", latencies))

    sample = random.Random(args.seed + 2).sample(workload.chunk_ids, SAMPLE)
    over = {c for c, n in workload.in_degree.items() if n > args.prune_keep}
    before = profiles_of(store, sample)
    t0 = time.perf_counter()
    report = prune_evaluations(store, keep=args.prune_keep)
    prune_seconds = time.perf_counter() - t0
    after = profiles_of(store, sample)
    remaining = evaluated_count(store)
    rss_after = sizes()[0]
    table = Table("measure", "value", title=f"prune --keep {args.prune_keep} ({label})")
    table.add_row("chunks over the limit", f"{report.items:,}")
    table.add_row("EVALUATED edges deleted", f"{report.deleted:,}")
    table.add_row("EVALUATED edges left", f"{remaining:,}")
    table.add_row(
        "seconds", f"{prune_seconds:.1f} ({report.deleted / max(prune_seconds, 1e-9):,.0f} edges/s)"
    )
    if rss_after is not None:
        table.add_row("server RSS after pruning", f"{rss_after:.0f} MiB")
    console.print(table)
    table = Table(
        "profiles of a fixed sample",
        "profiled",
        "identical text",
        "mean |Δ reliability|",
        "mean |Δ share rejected|",
        "top rejected reason changed",
        "lost their profile",
        title=f"profile quality after pruning ({label}; {SAMPLE} sampled chunks)",
    )
    for name, ids in (
        ("every sampled chunk with a profile", sample),
        (f"only those over {args.prune_keep} evaluations", [i for i in sample if i in over]),
    ):
        q = compare(before, after, ids)
        table.add_row(
            name,
            str(q.profiled),
            pct(q.identical),
            num(q.d_reliability),
            num(q.d_rejected),
            pct(q.reason_changed),
            pct(q.lost),
        )
    console.print(table)
    after_latencies = profile_latencies(store, cands, args.reps, args.warmup, ", after pruning")
    console.print(latency_table(f"query latency after pruning ({label}), ms", after_latencies))
    return Result(
        backend,
        workload.edges,
        loaded,
        rss,
        snapshot,
        latencies,
        prune_seconds,
        report.deleted,
        after_latencies,
    )


def latency_table(title: str, latencies: list[Latency]) -> Table:
    table = Table("query", "p50", "p95", "max", "mean", "items returned", title=title)
    for lat in latencies:
        table.add_row(lat.name, *lat.cells())
    return table


def pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.1f}%"


def ms(seconds: float) -> str:
    """Milliseconds, to 0.1 ms below 100 ms."""
    return f"{seconds * 1000:.1f}" if seconds < 0.1 else f"{seconds * 1000:.0f}"


def num(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:.3f}"


# -- the stores --------------------------------------------------------------------------


@contextmanager
def falkordb_store(
    folder: Path, edges: int
) -> Iterator[tuple[GraphStore, Callable[[], tuple[float | None, float | None, float | None]]]]:
    from graphmind.store.falkordb import FalkorDBLiteStore

    path = folder / f"profiles-{edges}.db"
    store = FalkorDBLiteStore(str(path))
    store.wipe()
    client = store._db.client  # the embedded server, for its PID and SAVE

    def sizes() -> tuple[float | None, float | None, float | None]:
        rss = psutil.Process(client.pid).memory_info().rss / 2**20 if client.pid else None
        client.save()
        aof_dir = path.with_name(path.name + ".aof")
        aof = sum(f.stat().st_size for f in aof_dir.glob("*")) if aof_dir.is_dir() else 0
        return rss, path.stat().st_size / 2**20, aof / 2**20

    try:
        yield store, sizes
    finally:
        store.close()


@contextmanager
def neo4j_store(
    uri: str,
) -> Iterator[tuple[GraphStore, Callable[[], tuple[float | None, float | None, float | None]]]]:
    from graphmind.store.neo4j import Neo4jStore

    store = Neo4jStore(
        uri,
        user=os.environ.get("GRAPHMIND_BENCH_NEO4J_USER", "neo4j"),
        password=os.environ.get("GRAPHMIND_BENCH_NEO4J_PASSWORD"),
        database=os.environ.get("GRAPHMIND_BENCH_NEO4J_DATABASE"),
    )
    store.wipe()
    try:
        yield store, lambda: (None, None, None)
    finally:
        store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--zipf", type=float, default=1.0, help="skew of chunk popularity")
    parser.add_argument("--batch", type=int, default=500, help="decisions per write query")
    parser.add_argument("--prune-keep", type=int, default=50)
    parser.add_argument("--store", type=Path, help="folder for the stores (kept); else a temp dir")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 10k edges, 30 reps")
    args = parser.parse_args()
    if args.quick:
        args.edges, args.reps, args.warmup = [10_000], 30, 5
    if args.chunks < SAMPLE or any(e < PER_DECISION for e in args.edges):
        parser.error(f"need at least {SAMPLE} chunks and {PER_DECISION} edges")
    console = Console(width=max(Console().width, 170))
    neo4j_uri = os.environ.get("GRAPHMIND_BENCH_NEO4J_URI")
    console.print(
        f"bench_profiles: edges {', '.join(f'{e:,}' for e in args.edges)}; {args.chunks:,} "
        f"chunks; {PER_DECISION} edges per decision; {QUERY_TYPES} query types; zipf "
        f"{args.zipf}; {args.reps} reps after {args.warmup} warm-up; seed {args.seed}; "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}",
        highlight=False,
    )
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="bench-profiles-") as tmp:
        folder = args.store or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for edges in args.edges:
            workload = synthesize(edges, args.chunks, args.seed, args.zipf)
            console.print(
                f"synthesized {workload.edges:,} edges in {workload.seconds:.1f}s (not timed)"
            )
            with falkordb_store(folder, edges) as (store, sizes):
                results.append(bench_store(console, "FalkorDB Lite", store, workload, args, sizes))
            if neo4j_uri:
                with neo4j_store(neo4j_uri) as (store, sizes):
                    results.append(bench_store(console, "Neo4j", store, workload, args, sizes))
    if not neo4j_uri:
        console.print(
            "Neo4j skipped: GRAPHMIND_BENCH_NEO4J_URI is not set (with _USER, _PASSWORD, "
            "_DATABASE; the database's GraphMind nodes and indexes are deleted)."
        )
    summary = Table(
        "store",
        "edges",
        "load s",
        "edges/s",
        "RSS MiB",
        "file MiB",
        "profiles uniform p50/p95",
        "profiles hot p50/p95",
        "exclusions p50/p95",
        "configs p50",
        "types p50",
        "prune s",
        "hot p50/p95 pruned",
        title="summary (latencies in ms)",
    )
    for r in results:
        lat = [ms(x.pct(0.5)) for x in r.latencies]
        p95 = [ms(x.pct(0.95)) for x in r.latencies]
        summary.add_row(
            r.backend,
            f"{r.edges:,}",
            f"{r.load.seconds:.1f}",
            f"{r.edges / r.load.seconds:,.0f}",
            "-" if r.rss_mib is None else f"{r.rss_mib:.0f}",
            "-" if r.file_mib is None else f"{r.file_mib:.0f}",
            f"{lat[0]}/{p95[0]}",
            f"{lat[1]}/{p95[1]}",
            f"{lat[2]}/{p95[2]}",
            lat[3],
            lat[4],
            f"{r.prune_seconds:.1f}",
            f"{ms(r.after[1].pct(0.5))}/{ms(r.after[1].pct(0.95))}",
        )
    console.print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
