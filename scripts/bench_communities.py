"""Benchmark the community layer on a built corpus graph.

Builds the corpus (default: the 2Wiki corpus of the HippoRAG benchmark) with the
rule-based scripted extraction and the hashed embedder into a temporary embedded
store, then times hierarchical Leiden (wall time, modularity, communities per
level), PageRank, and personalized PageRank queries (p50/p95 over random seeds).
Summaries use names only (no LLM), so only the graph work is timed. Prints tables.

    .venv/bin/python scripts/bench_communities.py [--corpus PATH] [--limit N] [--queries 200]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from graphmind.communities.algorithms import hierarchical_leiden, modularity
from graphmind.communities.centrality import PPR_ENTITIES, personalized_pagerank_ranking
from graphmind.communities.pipeline import CommunityOptions, build_communities
from graphmind.embed.hashing import HashingEmbedder
from graphmind.embed.spec import parse_embedder
from graphmind.extract.heuristic import heuristic_response
from graphmind.ingest.options import BuildOptions
from graphmind.ingest.pipeline import BuildPipeline
from graphmind.llm.client import LLM
from graphmind.llm.scripted import ScriptedProvider
from graphmind.store.falkordb import FalkorDBLiteStore

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = (
    REPO.parent / "shared/data/2wikimultihopqa/hipporag_full_corpus/2wikimultihopqa_corpus.json"
)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--max-size", type=int, default=50)
    args = parser.parse_args()
    console = Console()
    spec = parse_embedder("hash:384")
    embedder = HashingEmbedder(spec)
    with tempfile.TemporaryDirectory() as tmp:
        store = FalkorDBLiteStore(str(Path(tmp) / "graph.db"))
        try:
            store.ensure_schema(spec)
            llm = LLM(ScriptedProvider(heuristic_response), cache=None)
            t0 = time.perf_counter()
            BuildPipeline(store, embedder, llm, BuildOptions(limit=args.limit)).run(
                [str(args.corpus)]
            )
            build_seconds = time.perf_counter() - t0
            projection = store.read_projection("community/entity_projection")
            console.print(
                f"graph: {len(projection.nodes)} entities, {len(projection.edges)} RELATED "
                f"edges (built in {build_seconds:.0f}s)"
            )
            t0 = time.perf_counter()
            levels = hierarchical_leiden(projection, max_size=args.max_size)
            leiden_seconds = time.perf_counter() - t0
            top = [c.members for c in levels if c.level == 0]
            q = modularity(projection, top)
            stats = build_communities(
                store, embedder, None, CommunityOptions(max_size=args.max_size)
            )
            table = Table("measure", "value", title="communities (FalkorDB Lite, igraph path)")
            table.add_row("Leiden wall time (hierarchical, client side)", f"{leiden_seconds:.2f} s")
            table.add_row("modularity of level 0", f"{q:.3f}")
            for level, count in sorted(stats.levels.items()):
                table.add_row(f"communities at level {level} (size >= 2)", str(count))
            singletons = sum(1 for c in levels if c.level == 0 and len(c.members) == 1)
            table.add_row("singleton entities (no community)", str(singletons))
            for stage, seconds in stats.seconds.items():
                table.add_row(f"community stage: {stage}", f"{seconds:.2f} s")
            entities = sorted(n for n in projection.nodes)
            rng = random.Random(7)
            latencies = []
            for _ in range(args.queries):
                seeds = rng.sample(entities, k=min(3, len(entities)))
                t0 = time.perf_counter()
                personalized_pagerank_ranking(store, seeds, k=PPR_ENTITIES)
                latencies.append(time.perf_counter() - t0)
            table.add_row(
                f"PPR latency p50 / p95 ({args.queries} queries, 3 seeds)",
                f"{percentile(latencies, 0.5) * 1000:.1f} / "
                f"{percentile(latencies, 0.95) * 1000:.1f} ms",
            )
            table.add_row("PPR latency mean", f"{statistics.mean(latencies) * 1000:.1f} ms")
            console.print(table)
        finally:
            store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
