"""PageRank on entities and personalized PageRank (HippoRAG-style) for retrieval.

GDS on Neo4j when the plugin is there; igraph on a projection read by Cypher otherwise.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from graphmind.communities.algorithms import DAMPING, pagerank, personalized_pagerank
from graphmind.store.base import GraphStore, Projection

GDS_GRAPH = "graphmind-entities"
NEIGHBOURHOOD_LIMIT = 20_000
PPR_ENTITIES = 50  # entities personalized PageRank keeps; their chunks are ranked
PAGERANK_BATCH = 5000  # entity scores per write


@dataclass
class PPRResult:
    """Top entities by personalized PageRank, and chunks ranked by their entities' scores."""

    entities: list[tuple[str, float]] = field(default_factory=list)
    chunks: list[tuple[str, float]] = field(default_factory=list)
    algorithm: str = ""


def ensure_gds_projection(store: GraphStore, *, fresh: bool = False) -> None:
    """Project the entity graph into GDS (again, when ``fresh``)."""
    exists = bool(store.run("community/gds_exists", {"graph": GDS_GRAPH})[0]["exists"])
    if exists and fresh:
        store.run("community/gds_drop", {"graph": GDS_GRAPH}, write=True)
        exists = False
    if not exists:
        store.run("community/gds_project", {"graph": GDS_GRAPH}, write=True)


def drop_gds_projection(store: GraphStore) -> None:
    """Forget the GDS projection (it is stale once the graph changes)."""
    store.run("community/gds_drop", {"graph": GDS_GRAPH}, write=True)


def entity_pagerank(
    store: GraphStore, projection: Projection | None, scale: float = 1.0
) -> tuple[str, dict[str, float] | None]:
    """The algorithm used and the entities' PageRank scores, times ``scale`` (a region's,
    on the whole graph's scale). GDS computes and writes them in the store (no scores
    come back); otherwise igraph computes them here on ``projection`` (read when None),
    for ``write_pagerank``."""
    if store.has_gds():
        ensure_gds_projection(store)
        store.run("community/gds_pagerank", {"graph": GDS_GRAPH, "damping": DAMPING}, write=True)
        return "gds.pageRank", None
    graph = projection or store.read_projection("community/entity_projection")
    scores = pagerank(graph, damping=DAMPING)
    return "igraph pagerank", {node: score * scale for node, score in scores.items()}


def write_pagerank(store: GraphStore, scores: Mapping[str, float]) -> None:
    """Store the scores on their entities (unchanged ones are not written again)."""
    rows = [{"id": node, "score": score} for node, score in sorted(scores.items())]
    store.write_rows("community/set_pagerank", rows, batch_size=PAGERANK_BATCH)


def personalized_pagerank_ranking(
    store: GraphStore, seeds: Sequence[str], *, k: int = PPR_ENTITIES
) -> PPRResult:
    """Personalized PageRank seeded at ``seeds``: the top ``k`` entities and, through the
    chunks their triplets are mentioned in, a chunk ranking (sum of entity scores)."""
    if not seeds:
        return PPRResult()
    if store.has_gds():
        ensure_gds_projection(store)
        rows = store.run(
            "community/gds_personalized_pagerank",
            {"graph": GDS_GRAPH, "seeds": list(seeds), "damping": DAMPING, "k": k},
        )
        entities = [(r["id"], float(r["score"])) for r in rows]
        algorithm = "gds.pageRank (sourceNodes)"
    else:
        graph = store.read_projection(
            "community/neighbourhood", {"seeds": list(seeds), "limit": NEIGHBOURHOOD_LIMIT}
        )
        graph.nodes.extend(s for s in seeds if s not in set(graph.nodes))
        scores = personalized_pagerank(graph, seeds, damping=DAMPING)
        entities = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:k]
        algorithm = "igraph personalized pagerank (2-hop neighbourhood)"
    chunk_scores: dict[str, float] = defaultdict(float)
    score_of = dict(entities)
    for row in store.run("community/entity_chunks", {"ids": [e for e, _ in entities]}):
        chunk_scores[row["chunk"]] += score_of[row["entity"]]
    chunks = sorted(chunk_scores.items(), key=lambda item: (-item[1], item[0]))
    return PPRResult(entities, chunks, algorithm)
