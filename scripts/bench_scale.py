"""Measure how a whole build, ``ask``, an incremental build and a delete grow with the
size of the store.

For each size (in chunks) a synthetic corpus is made from the benchmark passages (the
2Wiki corpus of the HippoRAG benchmark, read from ``GRAPHMIND_EVAL_DATA``, by default the
``shared/data`` folder beside the repository): the passages in order, then again with
every name renamed (a suffix per copy on each capitalised word), so that a larger corpus
also has a larger vocabulary of entities, as a real one does. It is built into a fresh
store with the hashed embedder and ``--extract fast`` (spaCy, no LLM; community summaries
list their members' names), through every build stage (``run_build``). Then:

* ``ask`` (``--mode loop``, ``record`` on: each decision is written) answers
  ``--questions`` questions about documents of the store with a zero-latency scripted
  LLM: the store time per question (the loop's ``store_ms``, reads) and the whole
  question's wall time (the decision's write included), p50 and p95;
* an incremental build of 1% new documents (a second corpus file);
* a delete of 1% of the first documents (by id, as ``graphmind documents delete``).

After each step the documents, chunks and decisions in the store are checked against
what was written (nothing lost or duplicated); a mismatch is reported and the exit
status is 1. Per stage: seconds, documents per second, peak resident memory of this
process and of the store's server (sampled every 0.1 s; the build's peaks per progress
stage), and the store's size on disk after each step.

The default store is a fresh FalkorDB Lite file per size. ``--store bolt://HOST:PORT``
runs on Neo4j (credentials from ``GRAPHMIND_NEO4J_USER``, ``_PASSWORD``; its GraphMind data
is deleted before and after each size); ``--server-pid`` and ``--store-dir`` (its data
folder) let the server's memory and disk size be measured there too; an untimed
200-chunk run warms the server up first (its JIT compiler and query plans are cold).

    .venv/bin/python scripts/bench_scale.py [--sizes 10000,100000,1000000]
        [--store bolt://127.0.0.1:7687 --server-pid PID --store-dir DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import psutil
from rich.console import Console
from rich.table import Table

from graphmind.ask.loop import AskLoop, AskOptions
from graphmind.communities.pipeline import CommunityOptions
from graphmind.core.errors import GraphMindError
from graphmind.embed.hashing import HashingEmbedder
from graphmind.embed.spec import parse_embedder
from graphmind.eval.datasets import default_data_root
from graphmind.ingest.build import run_build
from graphmind.ingest.chunking import chunk_text
from graphmind.ingest.documents import delete_documents
from graphmind.ingest.loaders import load_paths
from graphmind.ingest.options import BuildOptions
from graphmind.ingest.pipeline import chunk_size_for
from graphmind.llm.client import LLM
from graphmind.llm.scripted import ScriptedProvider
from graphmind.store.base import GraphStore
from graphmind.store.falkordb import FalkorDBLiteStore
from scripts.benchkit import Target, responder

PASSAGES = "2wikimultihopqa/hipporag_full_corpus/2wikimultihopqa_corpus.json"
DEFAULT_SIZES = "3000,10000"
NAME = re.compile(r"\b[A-Z][a-z]{2,}\b")
# capitalised words that are not names: left as they are in every copy
COMMON = frozenset(
    [
        "The",
        "She",
        "His",
        "Her",
        "They",
        "This",
        "That",
        "These",
        "There",
        "Their",
        "After",
        "Before",
        "During",
        "From",
        "With",
        "When",
        "Which",
        "While",
        "Where",
        "What",
        "Who",
        "Its",
        "For",
        "And",
        "But",
        "His",
        "Also",
        "Born",
        "Died",
        "Since",
        "Until",
        "Under",
        "Over",
        "Between",
        "Into",
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ]
)
SYLLABLES = ("ka", "lo", "mi", "ra", "tu", "ve", "no", "si", "de", "ba")
SAMPLE_S = 0.1
WARM_UP = 200  # chunks built (untimed) before the sizes on Neo4j


def suffix(copy: int) -> str:
    """The syllables that rename every name of the ``copy``-th copy (none for the first)."""
    out = ""
    while copy:
        copy, digit = divmod(copy, len(SYLLABLES))
        out = SYLLABLES[digit] + out
    return out


def renamed(text: str, copy: int) -> str:
    """``text`` with every capitalised word (but common ones) renamed for ``copy``."""
    if copy == 0:
        return text
    end = suffix(copy)
    return NAME.sub(lambda m: m[0] if m[0] in COMMON else m[0] + end, text)


def passages(data_root: Path) -> list[dict[str, str]]:
    """The benchmark passages, read where they are (never copied)."""
    path = data_root / PASSAGES
    if not path.is_file():
        raise GraphMindError(f"no benchmark passages at {path} (set GRAPHMIND_EVAL_DATA)")
    records: list[dict[str, str]] = json.loads(path.read_text(encoding="utf-8"))
    return records


def synthetic(base: list[dict[str, str]], start: int) -> Iterator[dict[str, str]]:
    """Documents from the ``start``-th on: the passages, then renamed copies of them."""
    index = start
    while True:
        copy, at = divmod(index, len(base))
        record = base[at]
        title = renamed(record["title"], copy)
        yield {"title": f"{title} [{index}]", "text": renamed(record["text"], copy)}
        index += 1


@dataclass
class Corpus:
    """A corpus file of documents and the chunks the pipeline will cut from them."""

    path: Path
    ids: list[str]
    chunks: list[int]  # per document
    titles: list[str]

    @property
    def documents(self) -> int:
        return len(self.ids)


def write_corpus(
    path: Path, base: list[dict[str, str]], start: int, chunks: int, chunk_size: int
) -> tuple[Corpus, int]:
    """Documents from the ``start``-th until they hold ``chunks`` chunks, written to
    ``path``; and the index after the last one."""
    options = BuildOptions()
    records: list[dict[str, str]] = []
    total = 0
    generated = synthetic(base, start)
    while total < chunks:
        record = next(generated)
        records.append(record)
        body = f"{record['title']}\n{record['text']}"
        total += len(chunk_text("x", body, chunk_size, options.chunk_overlap))
    path.write_text(json.dumps(records), encoding="utf-8")
    docs = load_paths([path]).documents
    counted = [len(chunk_text(d.id, d.text, chunk_size, options.chunk_overlap)) for d in docs]
    corpus = Corpus(path, [d.id for d in docs], counted, [r["title"] for r in records])
    return corpus, start + len(records)


class Sampler:
    """Peak resident memory of this process and of the store's server, per phase."""

    def __init__(self, server_pid: int | None) -> None:
        self.me = psutil.Process()
        self.server = psutil.Process(server_pid) if server_pid else None
        self.phase = "idle"
        self.peaks: dict[str, list[float]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _rss(self, process: psutil.Process | None) -> float:
        try:
            return process.memory_info().rss / 2**20 if process else 0.0
        except psutil.Error:
            return 0.0

    def sample(self) -> None:
        own, server = self._rss(self.me), self._rss(self.server)
        peak = self.peaks.setdefault(self.phase, [0.0, 0.0])
        peak[0], peak[1] = max(peak[0], own), max(peak[1], server)

    def _loop(self) -> None:
        while not self._stop.wait(SAMPLE_S):
            self.sample()

    @contextmanager
    def during(self, phase: str) -> Iterator[None]:
        self.sample()
        self.phase = phase
        try:
            yield
        finally:
            self.sample()
            self.phase = "idle"

    # the Progress protocol: the build's progress stages become phases
    def start(self, stage: str, total: int | None) -> None:
        self.sample()
        self.phase = f"build:{stage}"

    def advance(self, stage: str, amount: int = 1) -> None:
        return None


@dataclass
class Step:
    """One measured step at one size."""

    name: str
    seconds: float
    documents: int
    rss_mib: float
    server_rss_mib: float | None
    disk_mib: float | None
    stages: dict[str, float] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def docs_per_s(self) -> float:
        return self.documents / self.seconds if self.seconds else 0.0


@dataclass
class SizeRun:
    """Every step at one size, what the store held after each, and any mismatch."""

    chunks: int
    documents: int
    steps: list[Step] = field(default_factory=list)
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    stage_peaks: dict[str, list[float]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def disk_mib(store: GraphStore, store_dir: Path | None) -> float | None:
    """The store's size on disk: the FalkorDB Lite file once saved, or ``store_dir``."""
    if isinstance(store, FalkorDBLiteStore):
        store._db.connection.save()  # the embedded server writes its file on save
        return Path(store.location).stat().st_size / 2**20
    if store_dir is None:
        return None
    files = (p for p in store_dir.rglob("*") if p.is_file())
    return sum(p.stat().st_size for p in files) / 2**20


def server_pid(store: GraphStore, given: int | None) -> int | None:
    if isinstance(store, FalkorDBLiteStore):
        return store._db.client.pid or None
    return given


def check(run: SizeRun, store: GraphStore, after: str, want: dict[str, int]) -> None:
    """Record the store's counts after a step; any that is not what was written is a
    problem."""
    counts = store.counts()
    run.counts[after] = {k: counts[k] for k in ("Document", "Chunk", "Entity", "Decision")}
    for label, expected in want.items():
        if counts[label] != expected:
            run.problems.append(f"after {after}: {counts[label]} {label} nodes, not {expected}")


def measure(
    target: Target,
    chunks: int,
    base: list[dict[str, str]],
    folder: Path,
    args: argparse.Namespace,
    console: Console,
) -> SizeRun:
    """Build ``chunks`` chunks into a fresh store, then ask, add 1%, delete 1%."""
    embedder = HashingEmbedder(parse_embedder("hash:384"))
    embedder.load()
    options = BuildOptions(extract="fast", batch_docs=args.batch_docs)
    size = chunk_size_for(options, embedder)
    corpus, after = write_corpus(folder / f"corpus-{chunks}.json", base, 0, chunks, size)
    extra_chunks = max(1, chunks // 100)
    more, _ = write_corpus(folder / f"more-{chunks}.json", base, after, extra_chunks, size)
    run = SizeRun(sum(corpus.chunks), corpus.documents)
    console.print(f"{run.chunks} chunks, {run.documents} documents: build …")
    with (
        target.fresh(f"scale-{chunks}", embedder.spec) as store,
        Sampler(server_pid(store, args.server_pid)) as sampler,
    ):

        def step(name: str, seconds: float, docs: int, **extra: Any) -> Step:
            own, server = sampler.peaks.get(name, [0.0, 0.0])
            if name == "build":
                for phase, peak in sampler.peaks.items():
                    if phase.startswith("build"):
                        own, server = max(own, peak[0]), max(server, peak[1])
            known = server_pid(store, args.server_pid) is not None
            done = Step(name, seconds, docs, own, server if known else None, None)
            done.disk_mib = disk_mib(store, args.store_dir)
            done.extra = extra
            run.steps.append(done)
            return done

        def build(name: str, path: Path) -> tuple[Step, Any]:
            """Build ``path`` into the store as step ``name``, with its stages' seconds."""
            with sampler.during(name):
                started = time.perf_counter()
                report = run_build(
                    store, embedder, None, [str(path)], options, CommunityOptions(), sampler
                )
                seconds = time.perf_counter() - started
            done = step(name, seconds, report.documents_new)
            done.stages = {k: v for k, v in report.seconds.items() if k != "total"}
            done.stages["communities"] = report.communities.get("seconds", {}).get("total", 0.0)
            return done, report

        built, report = build("build", corpus.path)
        built.extra = {
            "entities": report.counts.get("Entity", 0),
            "same_as": report.same_as_links,
        }
        run.stage_peaks = {
            k.removeprefix("build:"): v for k, v in sampler.peaks.items() if k.startswith("build")
        }
        check(run, store, "build", {"Document": corpus.documents, "Chunk": run.chunks})

        console.print(f"{run.chunks} chunks: {args.questions} asks …")
        llm = LLM(ScriptedProvider(responder(0.0)), cache=None)
        loop = AskLoop(store, embedder, llm, AskOptions(mode="loop", record=True))
        step_titles = corpus.titles[:: max(1, len(corpus.titles) // args.questions)]
        questions = [f"What is known about {t}?" for t in step_titles[: args.questions]]
        decisions_before = store.counts()["Decision"]
        store_ms: list[float] = []
        wall_ms: list[float] = []
        with sampler.during("ask"):
            started = time.perf_counter()
            for question in questions:
                t0 = time.perf_counter()
                decision = loop.ask(question)
                wall_ms.append((time.perf_counter() - t0) * 1000)
                store_ms.append(decision.store_ms)
            seconds = time.perf_counter() - started
        step(
            "ask",
            seconds,
            0,
            questions=len(questions),
            store_ms_p50=percentile(store_ms, 50),
            store_ms_p95=percentile(store_ms, 95),
            wall_ms_p50=percentile(wall_ms, 50),
            wall_ms_p95=percentile(wall_ms, 95),
        )
        want = {"Document": corpus.documents, "Chunk": run.chunks}
        check(run, store, "ask", {**want, "Decision": decisions_before + len(questions)})

        console.print(f"{run.chunks} chunks: incremental build of {more.documents} …")
        grown, report = build("incremental", more.path)
        grown.extra = {  # whether the community run stayed local, and on how much
            "community_scope": report.communities.get("scope", ""),
            "community_region": report.communities.get("region", 0),
            "community_joined": report.communities.get("joined", 0),
        }
        want = {
            "Document": corpus.documents + more.documents,
            "Chunk": run.chunks + sum(more.chunks),
        }
        check(run, store, "incremental", want)

        gone = list(range(0, corpus.documents, 100))  # 1% of the first documents
        console.print(f"{run.chunks} chunks: delete {len(gone)} documents …")
        with sampler.during("delete"):
            started = time.perf_counter()
            deleted = delete_documents(store, [corpus.ids[i] for i in gone])
            seconds = time.perf_counter() - started
        step("delete", seconds, len(deleted.documents), chunks=deleted.chunks)
        want = {
            "Document": want["Document"] - len(gone),
            "Chunk": want["Chunk"] - sum(corpus.chunks[i] for i in gone),
        }
        check(run, store, "delete", want)
        if deleted.chunks != sum(corpus.chunks[i] for i in gone):
            run.problems.append(f"delete reported {deleted.chunks} chunks removed")
    return run


def run_json(run: SizeRun) -> dict[str, Any]:
    """One size's results, JSON-ready."""
    steps = [{**asdict(s), "docs_per_s": s.docs_per_s} for s in run.steps]
    return {**asdict(run), "steps": steps}


def percentile(values: list[float], p: int) -> float:
    if len(values) < 2:
        return values[0] if values else 0.0
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1]


def tables(label: str, runs: list[SizeRun]) -> list[Table]:
    def cell(value: float | None, digits: int = 0) -> str:
        return "-" if value is None else f"{value:.{digits}f}"

    steps = Table(
        "chunks",
        "step",
        "seconds",
        "docs/s",
        "RSS MiB",
        "server RSS MiB",
        "disk MiB",
        "notes",
        title=f"growth ({label})",
    )
    stage_names = list(
        dict.fromkeys(k for r in runs for s in r.steps if s.name == "build" for k in s.stages)
    )
    stages = Table("chunks", *stage_names, title="build seconds per stage")
    for run in runs:
        for s in run.steps:
            notes = ", ".join(
                f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}" for k, v in s.extra.items()
            )
            steps.add_row(
                str(run.chunks),
                s.name,
                f"{s.seconds:.1f}",
                cell(s.docs_per_s) if s.documents else "-",
                cell(s.rss_mib),
                cell(s.server_rss_mib),
                cell(s.disk_mib, 1),
                notes,
            )
        build = next(s for s in run.steps if s.name == "build")
        stages.add_row(str(run.chunks), *(f"{build.stages.get(k, 0.0):.1f}" for k in stage_names))
    return [steps, stages]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=DEFAULT_SIZES, help="chunks, comma-separated")
    parser.add_argument("--store", help="a Neo4j URI (bolt://…); default: FalkorDB Lite files")
    parser.add_argument("--server-pid", type=int, help="the Neo4j server's process id")
    parser.add_argument("--store-dir", type=Path, help="the Neo4j server's data folder")
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--batch-docs", type=int, default=BuildOptions().batch_docs)
    parser.add_argument("--data", type=Path, help="the benchmark data folder")
    parser.add_argument("--no-warm-up", action="store_true", help="Neo4j: no warm-up build")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--jsonl", type=Path, help="also append each size's results to this file")
    args = parser.parse_args()
    console = Console(stderr=args.json, width=max(Console().width, 150))
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    try:
        base = passages(args.data or default_data_root())
    except GraphMindError as exc:
        print(exc, file=sys.stderr)
        return 2
    runs: list[SizeRun] = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            target = Target(args.store, Path(tmp))
        except GraphMindError as exc:
            print(exc, file=sys.stderr)
            return 2
        console.print(f"store: {target.label}, sizes: {sizes} chunks")
        if target.neo4j and not args.no_warm_up:  # a cold server runs its first builds slowly
            console.print(f"warm-up ({WARM_UP} chunks, not reported) …")
            warm = argparse.Namespace(**{**vars(args), "questions": 5})
            measure(target, WARM_UP, base, Path(tmp), warm, console)
        for chunks in sizes:
            runs.append(measure(target, chunks, base, Path(tmp), args, console))
            if args.jsonl is not None:  # each size as it ends: a long run keeps what it did
                with args.jsonl.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(run_json(runs[-1])) + "\n")
    problems = [f"{r.chunks} chunks: {p}" for r in runs for p in r.problems]
    if args.json:
        print(
            json.dumps(
                {
                    "store": target.label,
                    "cpus": os.cpu_count(),
                    "runs": [run_json(r) for r in runs],
                    "problems": problems,
                },
                indent=2,
            )
        )
    else:
        for table in tables(target.label, runs):
            console.print(table)
        for run in runs:
            peaks = ", ".join(f"{k} {v[0]:.0f}/{v[1]:.0f}" for k, v in run.stage_peaks.items())
            console.print(f"{run.chunks} chunks, peak RSS MiB (ours/server) by stage: {peaks}")
        for problem in problems:
            console.print(f"[red]{problem}[/red]")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
