"""Benchmark ``graphmind build`` against the raw write limit of the store.

Builds a corpus (default: the full 2Wiki corpus of the HippoRAG benchmark, 6,119
passages) with a zero-latency scripted LLM (a fixed rule-based extraction per chunk),
in two variants: a fast hashed embedder (only the pipeline and the store are timed)
and the real (default) embedder. The same rows are then written again
into a fresh store with plain batched ``UNWIND … MERGE`` queries (the raw limit), and
both are compared. Prints tables; asserts nothing.

    .venv/bin/python scripts/bench_build.py [--corpus PATH] [--limit N] [--variant hash|real|both]
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
from rich.console import Console
from rich.table import Table

from graphmind.build.chunking import chunk_text
from graphmind.build.loaders import load_paths
from graphmind.build.pipeline import BuildOptions, BuildPipeline
from graphmind.config import load_settings
from graphmind.embed import Embedder, make_embedder
from graphmind.embed.hashing import HashingEmbedder
from graphmind.embed.spec import EmbedderSpec, parse_embedder
from graphmind.extract.extractor import ChunkText, messages_for
from graphmind.extract.heuristic import heuristic_response
from graphmind.llm.base import Message
from graphmind.llm.client import LLM
from graphmind.llm.scripted import Responder, ScriptedProvider
from graphmind.store.falkordb import FalkorDBLiteStore

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = (
    REPO.parent / "shared/data/2wikimultihopqa/hipporag_full_corpus/2wikimultihopqa_corpus.json"
)
RAW_BATCH = 1000


@dataclass
class Run:
    """One timed run."""

    name: str
    seconds: float
    documents: int
    nodes: int
    relationships: int
    stages: dict[str, float]

    def rates(self) -> tuple[float, float, float]:
        return (
            self.documents / self.seconds,
            self.nodes / self.seconds,
            self.relationships / self.seconds,
        )


class RecordingPipeline(BuildPipeline):
    """The real pipeline, keeping a copy of every row it writes."""

    captured: list[dict[str, Any]]

    def write(self, rows: list[dict[str, Any]]) -> None:
        self.captured.extend(rows)
        super().write(rows)


def server_rss(store: FalkorDBLiteStore) -> int:
    """Resident memory of the embedded server, in bytes."""
    pid = store._db.client.pid  # the embedded server's process
    return int(psutil.Process(pid).memory_info().rss) if pid else 0


def node_and_rel_counts(store: FalkorDBLiteStore) -> tuple[int, int]:
    counts = store.counts()
    return sum(counts.values()) - counts["GraphMindMeta"], store.relationship_count()


def precomputed_answers(corpus: Path, limit: int | None) -> Responder:
    """A zero-latency scripted LLM: the rule-based extraction of every chunk is computed
    before timing, so answering is a dictionary look-up."""
    options = BuildOptions()
    answers: dict[str, str] = {}
    for doc in load_paths([corpus]).documents[:limit]:
        for chunk in chunk_text(doc.id, doc.text, options.chunk_size, options.chunk_overlap):
            message = messages_for(ChunkText(chunk.id, doc.title, chunk.text))
            answers[message[-1]["content"]] = heuristic_response(message)

    def answer(messages: list[Message]) -> str:
        return answers[messages[-1]["content"]]

    return answer


def run_pipeline(
    corpus: Path,
    embedder: Embedder,
    limit: int | None,
    workdir: Path,
    name: str,
    batch_docs: int = BuildOptions().batch_docs,
) -> tuple[Run, list[dict[str, Any]], int]:
    store = FalkorDBLiteStore(str(workdir / f"{name}.db"))
    try:
        store.ensure_schema(embedder.spec)
        llm = LLM(ScriptedProvider(precomputed_answers(corpus, limit)), cache=None)
        pipeline = RecordingPipeline(
            store, embedder, llm, BuildOptions(limit=limit, batch_docs=batch_docs)
        )
        pipeline.captured = []
        started = time.perf_counter()
        report = pipeline.run([str(corpus)])
        seconds = time.perf_counter() - started
        nodes, rels = node_and_rel_counts(store)
        rss = server_rss(store)
        stages = {k: v for k, v in report.seconds.items() if k != "total"}
        run = Run(name, seconds, report.documents_new, nodes, rels, stages)
        return run, pipeline.captured, rss
    finally:
        store.close()


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


def run_raw(
    captured: list[dict[str, Any]], spec: EmbedderSpec, workdir: Path, name: str
) -> tuple[Run, int]:
    rows = raw_rows(captured)
    store = FalkorDBLiteStore(str(workdir / f"{name}.db"))
    try:
        store.ensure_schema(spec)
        stages: dict[str, float] = {}
        started = time.perf_counter()
        for kind in ("documents", "chunks", "next", "entities", "triplets", "mentions", "related"):
            t0 = time.perf_counter()
            store.write_rows(f"bench/raw_{kind}", rows[kind], batch_size=RAW_BATCH)
            stages[kind] = time.perf_counter() - t0
        seconds = time.perf_counter() - started
        nodes, rels = node_and_rel_counts(store)
        rss = server_rss(store)
        return Run(name, seconds, len(rows["documents"]), nodes, rels, stages), rss
    finally:
        store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--limit", type=int, help="only the first N documents")
    parser.add_argument("--variant", choices=["hash", "real", "both"], default="both")
    parser.add_argument("--batch-docs", type=int, default=BuildOptions().batch_docs)
    args = parser.parse_args()
    if not args.corpus.exists():
        print(f"corpus not found: {args.corpus}", file=sys.stderr)
        return 2
    console = Console()
    docs = load_paths([args.corpus]).documents[: args.limit]
    console.print(f"corpus: {args.corpus.name}, {len(docs)} documents")
    variants: list[tuple[str, Embedder]] = []
    if args.variant in ("hash", "both"):
        variants.append(("hash", HashingEmbedder(parse_embedder("hash:384"))))
    if args.variant in ("real", "both"):
        variants.append(("real", make_embedder(load_settings())))
    results = Table(
        "run",
        "seconds",
        "docs/s",
        "nodes/s",
        "rels/s",
        "nodes",
        "rels",
        "server RSS MiB",
        title="build throughput (FalkorDB Lite)",
    )
    ratios = Table("embedder", "pipeline docs/s", "raw docs/s", "pipeline/raw", title="ratio")
    stage_table = Table("run", "stage seconds", title="where the time goes")
    with tempfile.TemporaryDirectory() as tmp:
        for name, embedder in variants:
            embedder.load()
            pipe, captured, pipe_rss = run_pipeline(
                args.corpus, embedder, args.limit, Path(tmp), f"pipe-{name}", args.batch_docs
            )
            raw, raw_rss = run_raw(captured, embedder.spec, Path(tmp), f"raw-{name}")
            for run, rss in ((pipe, pipe_rss), (raw, raw_rss)):
                d, n, r = run.rates()
                results.add_row(
                    run.name,
                    f"{run.seconds:.1f}",
                    f"{d:.0f}",
                    f"{n:.0f}",
                    f"{r:.0f}",
                    str(run.nodes),
                    str(run.relationships),
                    f"{rss / 2**20:.0f}",
                )
                stage_table.add_row(
                    run.name, ", ".join(f"{k} {v:.1f}" for k, v in run.stages.items())
                )
            ratios.add_row(
                name,
                f"{pipe.rates()[0]:.0f}",
                f"{raw.rates()[0]:.0f}",
                f"{pipe.rates()[0] / raw.rates()[0]:.2f}",
            )
            if hasattr(embedder, "stats"):
                console.print(f"{name} embedder: {embedder.stats.summary()}")
    console.print(results)
    console.print(ratios)
    console.print(stage_table)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    console.print(f"peak RSS of this process: {peak:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
