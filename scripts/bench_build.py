"""Benchmark ``graphmind build`` against the raw write limit of the store, and on Neo4j
against neo4j-graphrag's ``SimpleKGPipeline``.

Builds a corpus (default: the full 2Wiki corpus of the HippoRAG benchmark, 6,119
passages) with a zero-latency scripted LLM (a fixed rule-based extraction per chunk,
computed before timing), in two variants: a fast hashed embedder (only the pipeline and
the store are timed) and the real (default) embedder. The same rows are then
written again into a fresh store with plain batched ``UNWIND … MERGE`` queries (the raw
limit), and both are compared. Every run is then repeated on its own result: a re-run
should write nothing new.

``--store bolt://HOST:PORT`` runs on Neo4j (credentials from ``GRAPHMIND_NEO4J_USER``,
``_PASSWORD``, ``_DATABASE``; the database's GraphMind and neo4j-graphrag data is deleted
before each run). There the hashed variant also runs neo4j-graphrag's
``SimpleKGPipeline`` (``pip install -e '.[bench]'``) on the same documents, one document
per pipeline run as its documentation shows, with the same extraction answered instantly
(translated to its JSON format) and the same hashed embedder; its default text splitter,
entity resolution and lexical graph. The default store is FalkorDB Lite files in a
temporary folder. Prints tables, or with ``--json`` one JSON object; asserts nothing.

``--extract none,fast`` compares extraction modes instead (``fast:text``: fast, with each
weak fact embedded as its own text rather than read from its sentence): each builds the
corpus into a fresh store through every build stage (``run_build``: communities included, no LLM),
with the embedder of ``--variant`` (default: the real one), and the table gives each
stage's wall and CPU seconds (this process's, all threads; and the embedded FalkorDB
server's CPU seconds), the ratios to the first mode, and the entities, triplets and SAME_AS
links written.

    .venv/bin/python scripts/bench_build.py [--corpus PATH] [--limit N] [--variant hash|real|both]
        [--store bolt://localhost:7687] [--no-graphrag] [--extract none,fast] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import re
import resource
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from graphmind.communities.pipeline import CommunityOptions
from graphmind.config import load_settings
from graphmind.core.errors import GraphMindError
from graphmind.embed import Embedder
from graphmind.embed.hashing import HashingEmbedder
from graphmind.embed.spec import EmbedderSpec, parse_embedder
from graphmind.extract.extractor import ChunkText, messages_for
from graphmind.extract.heuristic import heuristic_response
from graphmind.factories import make_embedder
from graphmind.ingest.build import run_build
from graphmind.ingest.chunking import chunk_text
from graphmind.ingest.loaders import load_paths
from graphmind.ingest.options import BuildOptions
from graphmind.ingest.pipeline import BuildPipeline, chunk_size_for
from graphmind.llm.base import Message
from graphmind.llm.client import LLM
from graphmind.llm.scripted import Responder, ScriptedProvider
from graphmind.store.base import GraphStore
from scripts.benchkit import Target

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = (
    REPO.parent / "shared/data/2wikimultihopqa/hipporag_full_corpus/2wikimultihopqa_corpus.json"
)
RAW_BATCH = 1000
RAW_KINDS = ("documents", "chunks", "next", "entities", "triplets", "mentions", "related")
GRAPHRAG_MARK = "Input text:"  # the last section of its extraction prompt: the chunk


@dataclass
class Run:
    """One timed run, and what repeating it on its own result added."""

    name: str
    seconds: float
    documents: int
    nodes: int
    relationships: int
    stages: dict[str, float]
    server_rss_mib: float | None = None
    rerun_seconds: float = 0.0
    rerun_new_nodes: int = 0
    rerun_new_relationships: int = 0

    def rates(self) -> tuple[float, float, float]:
        return (
            self.documents / self.seconds,
            self.nodes / self.seconds,
            self.relationships / self.seconds,
        )


class RecordingPipeline(BuildPipeline):
    """The real pipeline, keeping a copy of every row it writes."""

    captured: list[dict[str, Any]]

    def write(self, batch: Sequence[Any], rows: list[dict[str, Any]]) -> int:
        self.captured.extend(rows)
        return super().write(batch, rows)


def graph_size(store: GraphStore) -> tuple[int, int]:
    """Nodes (GraphMind's meta node aside) and relationships in the whole database."""
    nodes = int(store.run_text("MATCH (n) RETURN count(n) AS n").records()[0]["n"])
    return nodes - store.counts()["GraphMindMeta"], store.relationship_count()


def chunk_answers(title: str, texts: Sequence[str]) -> dict[str, str]:
    """The rule-based extraction of each chunk text, keyed by the text."""
    return {
        text: heuristic_response(messages_for(ChunkText(f"c{i}", title, text)))
        for i, text in enumerate(texts)
    }


def precomputed_answers(corpus: Path, limit: int | None, embedder: Embedder) -> Responder:
    """A zero-latency scripted LLM: the rule-based extraction of every chunk (cut as the
    pipeline cuts them for this embedder) is computed before timing, so answering is a
    dictionary look-up."""
    options = BuildOptions()
    size = chunk_size_for(options, embedder)
    answers: dict[str, str] = {}
    for doc in load_paths([corpus]).documents[:limit]:
        for chunk in chunk_text(doc.id, doc.text, size, options.chunk_overlap):
            message = messages_for(ChunkText(chunk.id, doc.title, chunk.text))
            answers[message[-1]["content"]] = heuristic_response(message)

    def answer(messages: list[Message]) -> str:
        return answers[messages[-1]["content"]]

    return answer


def run_pipeline(
    target: Target,
    corpus: Path,
    embedder: Embedder,
    limit: int | None,
    name: str,
    batch_docs: int,
) -> tuple[Run, list[dict[str, Any]]]:
    """GraphMind's pipeline, timed, then run again on its own result."""
    llm = LLM(ScriptedProvider(precomputed_answers(corpus, limit, embedder)), cache=None)
    options = BuildOptions(limit=limit, batch_docs=batch_docs)
    with target.fresh(name, embedder.spec) as store:
        pipeline = RecordingPipeline(store, embedder, llm, options)
        pipeline.captured = []
        started = time.perf_counter()
        report = pipeline.run([str(corpus)])
        seconds = time.perf_counter() - started
        nodes, rels = graph_size(store)
        stages = {k: v for k, v in report.seconds.items() if k != "total"}
        run = Run(name, seconds, report.documents_new, nodes, rels, stages)
        run.server_rss_mib = target.server_rss(store)
        started = time.perf_counter()
        BuildPipeline(store, embedder, llm, options).run([str(corpus)])
        _rerun(run, store, time.perf_counter() - started)
        return run, pipeline.captured


def warm_up(target: Target, corpus: Path, embedder: Embedder, batch_docs: int) -> None:
    """Untimed: the same builds once before the timed ones. A Neo4j server just started
    runs its first builds slowly (its JIT compiler and query plans are cold), which would
    fall on whichever run came first: the pipeline took 10.5 s for 1,000 documents on a
    fresh server, 6.4 s after a 200-document warm-up, 5.8 s after this one, 4.3 s after
    several benchmark runs."""
    _, captured = run_pipeline(target, corpus, embedder, None, "warm-up", batch_docs)
    run_raw(captured, embedder.spec, target, "warm-up-raw")


def _rerun(run: Run, store: GraphStore, seconds: float) -> None:
    nodes, rels = graph_size(store)
    run.rerun_seconds = seconds
    run.rerun_new_nodes, run.rerun_new_relationships = nodes - run.nodes, rels - run.relationships


def raw_rows(captured: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The pipeline's rows flattened into one list per plain query (not timed)."""
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    seen: dict[str, set[str]] = defaultdict(set)
    related: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for doc in captured:
        rows["documents"].append({k: doc[k] for k in ("id", "source", "title", "sha256")})
        for c in doc["chunks"]:
            rows["chunks"].append(
                {
                    "document_id": doc["id"],
                    **{k: c[k] for k in ("id", "text", "position", "tokens", "embedding")},
                }
            )
        rows["next"].extend({"source": a, "target": b} for a, b in doc["next"])
        for e in doc["entities"]:
            if e["embedding"] is not None and e["id"] not in seen["entities"]:
                seen["entities"].add(e["id"])
                rows["entities"].append(
                    {k: e[k] for k in ("id", "name", "type", "description", "embedding")}
                )
        for t in doc["triplets"]:
            if t["embedding"] is not None and t["id"] not in seen["triplets"]:
                seen["triplets"].add(t["id"])
                rows["triplets"].append(
                    {
                        k: t[k]
                        for k in (
                            "id",
                            "subject",
                            "predicate",
                            "object",
                            "text",
                            "description",
                            "event_time",
                            "subject_id",
                            "object_id",
                            "embedding",
                        )
                    }
                )
                related[(t["subject_id"], t["object_id"], t["predicate"])].append(t["id"])
            rows["mentions"].extend({"triplet_id": t["id"], "chunk_id": c} for c in t["chunk_ids"])
    rows["related"] = [
        {"source": s, "target": o, "predicate": p, "weight": len(ids), "triplet_ids": sorted(ids)}
        for (s, o, p), ids in related.items()
    ]
    return rows


def run_raw(captured: list[dict[str, Any]], spec: EmbedderSpec, target: Target, name: str) -> Run:
    """The pipeline's rows written with plain batched UNWIND … MERGE, then again."""
    rows = raw_rows(captured)

    def write(store: GraphStore, stages: dict[str, float]) -> None:
        for kind in RAW_KINDS:
            t0 = time.perf_counter()
            store.write_rows(f"bench/raw_{kind}", rows[kind], batch_size=RAW_BATCH)
            stages[kind] = time.perf_counter() - t0

    with target.fresh(name, spec) as store:
        stages: dict[str, float] = {}
        started = time.perf_counter()
        write(store, stages)
        seconds = time.perf_counter() - started
        nodes, rels = graph_size(store)
        run = Run(name, seconds, len(rows["documents"]), nodes, rels, stages)
        run.server_rss_mib = target.server_rss(store)
        started = time.perf_counter()
        write(store, {})
        _rerun(run, store, time.perf_counter() - started)
        return run


# -- extraction modes ----------------------------------------------------------------------


@dataclass
class ModeRun:
    """One extraction mode's whole build: wall and CPU seconds per stage and what it wrote.
    ``cpu`` is this process's CPU seconds (all threads) per stage and in ``total``;
    ``server_cpu`` the embedded FalkorDB server's (None on Neo4j: not measured)."""

    mode: str
    embedder: str
    seconds: float
    stages: dict[str, float]
    cpu: dict[str, float]
    server_cpu: float | None
    documents: int
    chunks: int
    entities: int
    triplets: int
    same_as: int
    embedded_texts: int
    communities: dict[str, Any] = field(default_factory=dict)


def run_mode(
    target: Target,
    corpus: Path,
    embedder: Embedder,
    mode: str,
    batch_docs: int,
    name: str,
    limit: int | None = None,
) -> ModeRun:
    """``run_build`` with extraction ``mode`` into a fresh store (no LLM: community
    summaries list member names), timed as a whole and per stage. ``fast:text`` is
    ``fast`` with every fact embedded as its own text (``fact_vectors = "text"``)."""
    extract, _, vectors = mode.partition(":")
    options = BuildOptions(
        extract=extract,  # type: ignore[arg-type]
        batch_docs=batch_docs,
        limit=limit,
        fact_vectors=vectors or BuildOptions.fact_vectors,  # type: ignore[arg-type]
    )
    with target.fresh(name, embedder.spec) as store:
        server = target.server_cpu(store)
        started, cpu_started = time.perf_counter(), time.process_time()
        report = run_build(store, embedder, None, [str(corpus)], options, CommunityOptions())
        seconds = time.perf_counter() - started
        cpu_total = time.process_time() - cpu_started
        server_after = target.server_cpu(store)
        stages = {k: v for k, v in report.seconds.items() if k != "total"}
        # on Neo4j a batch's write overlaps the next batch's extract and embed: the stages
        # add up to more than the whole (in CPU seconds too: the process's, all threads)
        stages["communities"] = report.communities.get("seconds", {}).get("total", 0.0)
        cpu = {k: v for k, v in report.cpu_seconds.items() if k != "total"}
        cpu["communities"] = report.communities.get("cpu_seconds", {}).get("total", 0.0)
        cpu["total"] = cpu_total
        counts = store.counts()
        return ModeRun(
            mode,
            embedder.spec.model,
            seconds,
            stages,
            cpu,
            None if server is None or server_after is None else server_after - server,
            report.documents_new,
            counts["Chunk"],
            counts["Entity"],
            counts["Triplet"],
            report.same_as_links,
            report.embedded_texts,
            report.communities,
        )


def mode_table(target: Target, runs: list[ModeRun]) -> Table:
    stage_names = list(dict.fromkeys(k for r in runs for k in r.stages))
    table = Table(
        "mode",
        "embedder",
        "seconds",
        "x first",
        *stage_names,
        "CPU s",
        "x first",
        *(f"{k} CPU" for k in stage_names),
        "server CPU",
        "docs",
        "entities",
        "triplets",
        "SAME_AS",
        "embedded",
        title=f"extraction modes ({target.label})",
    )
    for run in runs:
        first = next(r for r in runs if r.embedder == run.embedder)
        table.add_row(
            run.mode,
            run.embedder,
            f"{run.seconds:.1f}",
            f"{run.seconds / first.seconds:.2f}",
            *(f"{run.stages.get(k, 0.0):.1f}" for k in stage_names),
            f"{run.cpu['total']:.1f}",
            f"{run.cpu['total'] / first.cpu['total']:.2f}",
            *(f"{run.cpu.get(k, 0.0):.1f}" for k in stage_names),
            "-" if run.server_cpu is None else f"{run.server_cpu:.1f}",
            str(run.documents),
            str(run.entities),
            str(run.triplets),
            str(run.same_as),
            str(run.embedded_texts),
        )
    return table


# -- neo4j-graphrag ----------------------------------------------------------------------


def graphrag_answer(ours: str) -> str:
    """GraphMind's extraction JSON as neo4j-graphrag's: nodes with ids and labels,
    relationships between node ids with an upper-case type."""
    data = json.loads(ours)
    ids: dict[str, str] = {}
    nodes: list[dict[str, Any]] = []

    def node(name: str, kind: str = "unknown") -> str:
        if name not in ids:
            ids[name] = str(len(ids))
            label = kind.title() if kind.isalpha() and kind != "unknown" else "Entity"
            nodes.append({"id": ids[name], "label": label, "properties": {"name": name}})
        return ids[name]

    for entity in data["entities"]:
        node(entity["name"], entity["type"])
    relationships = [
        {
            "type": re.sub(r"\W+", "_", r["predicate"]).strip("_").upper() or "RELATED_TO",
            "start_node_id": node(r["subject"]),
            "end_node_id": node(r["object"]),
            "properties": {},
        }
        for r in data["relations"]
    ]
    return json.dumps({"nodes": nodes, "relationships": relationships})


def run_graphrag(
    target: Target, documents: Sequence[Any], embedder: Embedder, name: str
) -> Run | str:
    """neo4j-graphrag's SimpleKGPipeline, one run per document, then all again; or why
    it could not run."""
    try:
        from neo4j_graphrag.components.text_splitters.fixed_size_splitter import (
            FixedSizeSplitter,
        )
        from neo4j_graphrag.embeddings import Embedder as GraphRagEmbedder
        from neo4j_graphrag.experimental.pipeline.kg_builder import SimpleKGPipeline
        from neo4j_graphrag.llm import LLMInterface, LLMResponse
    except ImportError:
        return "neo4j-graphrag is not installed: pip install -e '.[bench]'"
    from neo4j import GraphDatabase

    from graphmind.store.neo4j import NOTIFICATIONS

    assert target.settings is not None
    splitter = FixedSizeSplitter()  # SimpleKGPipeline's default, made here to precompute
    answers: dict[str, str] = {}
    for doc in documents:
        chunks = asyncio.run(splitter.run(doc.text)).chunks
        for text, ours in chunk_answers(doc.title, [c.text for c in chunks]).items():
            answers[text.strip()] = graphrag_answer(ours)

    class ScriptedLLM(LLMInterface):
        """Answers each extraction prompt with the precomputed extraction of its chunk."""

        def invoke(self, input: str, *args: Any, **kwargs: Any) -> LLMResponse:
            return LLMResponse(content=answers[input.rsplit(GRAPHRAG_MARK, 1)[1].strip()])

        async def ainvoke(self, input: str, *args: Any, **kwargs: Any) -> LLMResponse:
            return self.invoke(input)

    class HashedEmbedder(GraphRagEmbedder):
        def embed_query(self, text: str) -> list[float]:
            return embedder.embed([text])[0]

    logging.getLogger("neo4j_graphrag").setLevel(logging.ERROR)  # its deprecation notices
    settings = target.settings
    password = settings.neo4j_password.get_secret_value() if settings.neo4j_password else None
    auth = (settings.neo4j_user, password) if password is not None else None  # as the store's
    driver = GraphDatabase.driver(settings.store, auth=auth, **NOTIFICATIONS)
    store = target.open_empty(name)
    try:
        kg = SimpleKGPipeline(
            llm=ScriptedLLM("scripted"),
            driver=driver,
            embedder=HashedEmbedder(),
            schema="FREE",
            from_file=False,
            text_splitter=splitter,
            neo4j_database=settings.neo4j_database,
        )

        async def build_all() -> float:
            started = time.perf_counter()
            for doc in documents:
                await kg.run_async(text=doc.text, file_path=doc.source)
            return time.perf_counter() - started

        seconds = asyncio.run(build_all())
        nodes, rels = graph_size(store)
        run = Run(name, seconds, len(documents), nodes, rels, {"pipeline": seconds})
        _rerun(run, store, asyncio.run(build_all()))
        return run
    finally:
        try:
            target.clear(store)
        finally:
            store.close()
            driver.close()


# -- the report ----------------------------------------------------------------------------


@dataclass
class Ratio:
    """Documents per second of the pipeline beside the raw writes (and neo4j-graphrag)."""

    embedder: str
    pipeline: float
    raw: float
    graphrag: float | None = None
    notes: list[str] = field(default_factory=list)

    def cells(self) -> list[str]:
        graphrag = "-" if self.graphrag is None else f"{self.graphrag:.1f}"
        versus = "-" if self.graphrag is None else f"{self.pipeline / self.graphrag:.1f}"
        return [
            self.embedder,
            f"{self.pipeline:.0f}",
            f"{self.raw:.0f}",
            f"{self.pipeline / self.raw:.2f}",
            graphrag,
            versus,
        ]


def tables(target: Target, runs: list[Run], ratios: list[Ratio]) -> list[Table]:
    results = Table(
        "run",
        "seconds",
        "docs/s",
        "nodes/s",
        "rels/s",
        "nodes",
        "rels",
        "server RSS MiB",
        "re-run s",
        "re-run new nodes/rels",
        title=f"build throughput ({target.label})",
    )
    stage_table = Table("run", "stage seconds", title="where the time goes")
    for run in runs:
        d, n, r = run.rates()
        rss = "-" if run.server_rss_mib is None else f"{run.server_rss_mib:.0f}"
        results.add_row(
            run.name,
            f"{run.seconds:.1f}",
            f"{d:.1f}",
            f"{n:.0f}",
            f"{r:.0f}",
            str(run.nodes),
            str(run.relationships),
            rss,
            f"{run.rerun_seconds:.1f}",
            f"{run.rerun_new_nodes}/{run.rerun_new_relationships}",
        )
        stage_table.add_row(run.name, ", ".join(f"{k} {v:.1f}" for k, v in run.stages.items()))
    ratio_table = Table(
        "embedder",
        "pipeline docs/s",
        "raw docs/s",
        "pipeline/raw",
        "neo4j-graphrag docs/s",
        "pipeline/neo4j-graphrag",
        title="ratios",
    )
    for ratio in ratios:
        ratio_table.add_row(*ratio.cells())
    return [results, ratio_table, stage_table]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--limit", type=int, help="only the first N documents")
    parser.add_argument("--variant", choices=["hash", "real", "both"], default="both")
    parser.add_argument("--batch-docs", type=int, default=BuildOptions().batch_docs)
    parser.add_argument("--store", help="a Neo4j URI (bolt://…); default: FalkorDB Lite files")
    parser.add_argument("--no-graphrag", action="store_true", help="skip neo4j-graphrag")
    parser.add_argument(
        "--extract", help="compare extraction modes instead, e.g. none,fast (see above)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    console = Console(stderr=args.json, width=max(Console().width, 150))
    if not args.corpus.exists():
        print(f"corpus not found: {args.corpus}", file=sys.stderr)
        return 2
    docs = load_paths([args.corpus]).documents[: args.limit]
    console.print(f"corpus: {args.corpus.name}, {len(docs)} documents")
    variants: list[tuple[str, Embedder]] = []
    if args.extract and args.variant == "both":
        args.variant = "real"
    if args.variant in ("hash", "both"):
        variants.append(("hash", HashingEmbedder(parse_embedder("hash:384"))))
    if args.variant in ("real", "both"):
        variants.append(("real", make_embedder(load_settings())))
    runs: list[Run] = []
    ratios: list[Ratio] = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            target = Target(args.store, Path(tmp))
        except GraphMindError as exc:
            print(exc, file=sys.stderr)
            return 2
        corpus = args.corpus
        if args.limit is not None:  # so that the pipeline reads only these documents
            corpus = Path(tmp) / "corpus.json"
            corpus.write_text(json.dumps([{"title": d.title, "text": d.text} for d in docs]))
        console.print(f"store: {target.label}")
        if args.extract:
            return compare_modes(args, console, target, corpus, variants)
        for name, embedder in variants:
            embedder.load()
            if target.neo4j and name == variants[0][0]:
                warm_up(target, corpus, embedder, args.batch_docs)
            console.print(f"{name}: pipeline …")
            pipe, captured = run_pipeline(
                target, corpus, embedder, None, f"pipe-{name}", args.batch_docs
            )
            console.print(f"{name}: raw UNWIND … MERGE …")
            raw = run_raw(captured, embedder.spec, target, f"raw-{name}")
            runs += [pipe, raw]
            ratio = Ratio(name, pipe.rates()[0], raw.rates()[0])
            if name == "hash" and target.neo4j and not args.no_graphrag:
                console.print(f"{name}: neo4j-graphrag SimpleKGPipeline …")
                graphrag = run_graphrag(target, docs, embedder, f"neo4j-graphrag-{name}")
                if isinstance(graphrag, Run):
                    runs.append(graphrag)
                    ratio.graphrag = graphrag.rates()[0]
                else:
                    ratio.notes.append(graphrag)
                    console.print(graphrag)
            ratios.append(ratio)
            if hasattr(embedder, "stats"):
                console.print(f"{name} embedder: {embedder.stats.summary()}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if args.json:
        report = {
            "corpus": str(args.corpus),
            "documents": len(docs),
            "store": target.label,
            "runs": [{**asdict(r), "docs_per_s": r.rates()[0]} for r in runs],
            "ratios": [
                {
                    **asdict(r),
                    "pipeline_over_raw": r.pipeline / r.raw,
                    "pipeline_over_graphrag": r.pipeline / r.graphrag if r.graphrag else None,
                }
                for r in ratios
            ],
            "peak_rss_mib": peak,
        }
        print(json.dumps(report, indent=2))
        return 0
    for table in tables(target, runs, ratios):
        console.print(table)
    console.print(f"peak RSS of this process: {peak:.0f} MiB")
    return 0


def compare_modes(
    args: argparse.Namespace,
    console: Console,
    target: Target,
    corpus: Path,
    variants: list[tuple[str, Embedder]],
) -> int:
    """``--extract``: each mode's whole build, per embedder variant."""
    modes = [m.strip() for m in args.extract.split(",") if m.strip()]
    runs: list[ModeRun] = []
    for name, embedder in variants:
        embedder.load()
        if target.neo4j and name == variants[0][0]:  # a cold server is slow at first
            run_mode(target, corpus, embedder, modes[-1], args.batch_docs, "warm-up", limit=200)
        for mode in modes:
            console.print(f"{name}: --extract {mode} …")
            runs.append(run_mode(target, corpus, embedder, mode, args.batch_docs, f"{mode}-{name}"))
    if args.json:
        print(json.dumps({"store": target.label, "modes": [asdict(r) for r in runs]}, indent=2))
    else:
        console.print(mode_table(target, runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
