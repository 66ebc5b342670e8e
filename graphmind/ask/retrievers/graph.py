"""Passages ranked by personalized PageRank over entities and passages (HippoRAG 2).

The facts (triplets) nearest the query seed the walk at their subject and object
entities, each weighted by the fact's similarity over the number of chunks stating a
fact of that entity (a rare entity says more than a hub); the passages nearest the query
are seeded too, with a small weight, and so are the passages the full-text index ranks
first for the query's words (names, numbers, rare terms a sentence embedding blurs).
PageRank then runs on a bounded sub-graph read by named Cypher: the seeds, their
``RELATED`` and ``SAME_AS`` neighbours, the chunks stating their facts, and the near
passages with their entities. Passages are ranked by their score, so a passage the
question never names but its facts lead to (the next hop) can rank above a
near-duplicate of the question.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from graphmind.ask.retrievers.base import Query, Ranking, RetrieveOptions, text_chunks
from graphmind.communities.algorithms import weighted_personalized_pagerank
from graphmind.core.recipes import GRAPH
from graphmind.store.base import GraphStore, Projection

GRAPH_PPR = "graph:ppr"  # the list's name


@dataclass(frozen=True)
class GraphOptions:
    """The walk's knobs (HippoRAG 2's defaults where it has one)."""

    facts: int = 5  # triplets nearest the query that seed their entities
    passages: int = 50  # chunks nearest the query, seeded as passage nodes
    passage_weight: float = 0.1  # the nearest passage's seed weight against a fact's entity
    text_passages: int = 5  # chunks the full-text index ranks first, seeded too
    text_weight: float = 0.1  # the first full-text chunk's seed weight, falling with rank
    damping: float = 0.6  # chance of following an edge (HippoRAG 2: 0.5; measured below)
    per_entity: int = 30  # neighbours and chunks read per entity (the sub-graph's bound)


@dataclass
class GraphRanking:
    """The passages by score, best first, with the seeds and the sub-graph's size."""

    chunks: list[tuple[str, float]] = field(default_factory=list)
    seeds: dict[str, float] = field(default_factory=dict)
    nodes: int = 0
    edges: int = 0


class GraphPassages:
    """Personalized PageRank from the query's nearest facts over entities and passages."""

    name = GRAPH
    source = GRAPH_PPR

    def __init__(self, options: GraphOptions | None = None) -> None:
        self.options = options or GraphOptions()

    def search(self, store: GraphStore, query: Query, options: RetrieveOptions) -> Ranking:
        ranking = graph_ranking(store, query, self.options, options.per_list)
        return [chunk for chunk, _ in ranking.chunks[: options.per_list]]


def graph_ranking(
    store: GraphStore,
    query: Query,
    options: GraphOptions | None = None,
    per_list: int = RetrieveOptions.per_list,
) -> GraphRanking:
    """Passages ranked by the walk; empty when the store has no fact near the query (a
    chunk-only store), so the caller keeps its vector list. ``per_list``: how deep the
    full-text list searches, so the walk reads the same search."""
    opts = options or GraphOptions()
    vector = query.vector
    facts = store.vector_search("Triplet", vector, opts.facts)
    if not facts:
        return GraphRanking()
    score = {h.id: _cosine(h.similarity) for h in facts}
    seeds: dict[str, float] = defaultdict(float)
    for row in store.run(
        "ask/graph_fact_entities", {"ids": list(score), "cap": opts.per_entity * 10}
    ):
        seeds[_entity(row["entity"])] += score[row["triplet"]] / max(1, int(row["chunks"]))
    if not seeds:
        return GraphRanking()
    near = store.vector_search("Chunk", vector, opts.passages)
    high = max((h.similarity for h in near), default=0.0)
    low = min((h.similarity for h in near), default=0.0)
    for hit in near:
        share = (hit.similarity - low) / (high - low) if high > low else 1.0
        seeds[_chunk(hit.id)] += opts.passage_weight * share
    # read from the full-text list's own search: one search for both
    depth = max(opts.text_passages, per_list)
    worded = text_chunks(store, query, depth)[: opts.text_passages] if opts.text_passages else []
    for rank, chunk in enumerate(worded):
        seeds[_chunk(chunk)] += opts.text_weight * (1.0 - rank / len(worded))
    entities = [e[2:] for e in seeds if e.startswith("e:")]
    graph = _subgraph(store, entities, [h.id for h in near], opts, worded)
    scores = weighted_personalized_pagerank(graph, seeds, damping=opts.damping)
    chunks = sorted(
        ((node[2:], s) for node, s in scores.items() if node.startswith("c:")),
        key=lambda item: (-item[1], item[0]),
    )
    return GraphRanking(chunks, dict(seeds), len(graph.nodes), len(graph.edges))


def _subgraph(
    store: GraphStore,
    entities: list[str],
    passages: list[str],
    opts: GraphOptions,
    worded: Sequence[str] = (),
) -> Projection:
    """The seeds, their neighbours, the chunks stating facts of either, the near
    passages with their entities, and the full-text passages (seeds, with no edges of
    their own read); node ids prefixed by kind (``e:``, ``c:``)."""
    edges: list[tuple[str, str, float]] = []
    for row in store.run(
        "ask/graph_entity_edges", {"ids": entities, "per_entity": opts.per_entity}
    ):
        edges.append((_entity(row["source"]), _entity(row["target"]), float(row["weight"])))
    reached = sorted(set(entities) | {e[1][2:] for e in edges})
    for row in store.run(
        "ask/graph_entity_chunks", {"ids": reached, "per_entity": opts.per_entity}
    ):
        entity = _entity(row["entity"])
        edges.extend((entity, _chunk(chunk), 1.0) for chunk in row["chunks"])
    for row in store.run("ask/graph_chunk_entities", {"ids": passages}):
        chunk = _chunk(row["chunk"])
        edges.extend((chunk, _entity(entity), 1.0) for entity in row["entities"])
    nodes = {n for a, b, _ in edges for n in (a, b)}
    nodes.update(_entity(e) for e in entities)
    nodes.update(_chunk(c) for c in (*passages, *worded))
    return Projection(sorted(nodes), edges)


def _cosine(similarity: float) -> float:
    """The stores' similarity (1 + cos) / 2 back to the cosine, at least 0."""
    return max(0.0, 2.0 * similarity - 1.0)


def _entity(node: str) -> str:
    return f"e:{node}"


def _chunk(node: str) -> str:
    return f"c:{node}"
