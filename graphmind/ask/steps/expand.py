"""Expand: the evolving sub-graph and the graph expansion toward the diagnosed gap."""

from __future__ import annotations

from collections.abc import Sequence

from graphmind.ask.options import (
    EVOLVE_CHUNKS,
    EXPAND_ANCHORS,
    EXPAND_ENTITIES,
    EXPAND_POOL,
    EXPAND_RELATIONS,
    RELATION_TRIPLETS,
)
from graphmind.ask.state import AskState, Tools
from graphmind.ask.steps.gather import embed
from graphmind.core.decision import Judgement
from graphmind.core.vectors import cosine
from graphmind.extract.extractor import ChunkText, extract_chunks
from graphmind.extract.writer import write_extractions
from graphmind.store.base import Row


def evolve(tools: Tools, state: AskState, j: Judgement) -> None:
    """The evolving sub-graph (extract triplets from used chunks that have none), then
    QRMeM's expansion toward the relation that best matches the diagnosed gap."""
    used = state.used()
    if tools.options.evolve_graph and used:
        evolve_graph(tools, state, [c.id for c in used])
    anchors = used or state.rounds[-1].candidates[:EXPAND_ANCHORS]
    if tools.options.expand:
        with state.timed("store"):
            state.expanded = expand(tools, state, j, [c.id for c in anchors])


def expand(tools: Tools, state: AskState, j: Judgement, chunk_ids: list[str]) -> list[str]:
    """Chunks behind the relations (of the anchors' entities) most similar to
    [question; missing; entities]."""
    entities = tools.store.run("ask/chunk_entities", {"ids": chunk_ids})
    if not entities:
        return []
    relations = tools.store.run(
        "ask/entity_relations", {"ids": [e["id"] for e in entities], "limit": EXPAND_POOL}
    )
    if not relations:
        return []
    target = " ".join([state.question, j.missing, *(e["name"] for e in entities[:EXPAND_ENTITIES])])
    scores = relation_scores(tools, embed(tools, state, [target])[0], relations)
    best = sorted(range(len(relations)), key=lambda i: -scores[i])[:EXPAND_RELATIONS]
    triplets = [t for i in best for t in (relations[i]["triplet_ids"] or [])]
    rows = tools.store.run("ask/chunks_for_triplets", {"ids": triplets})
    return list(dict.fromkeys(r["chunk"] for r in rows))


def relation_scores(tools: Tools, goal: Sequence[float], relations: list[Row]) -> list[float]:
    """Each relation's cosine with ``goal``: the best of its triplets' stored vectors (the
    fact as the build embedded it), computed by the store; a relation whose triplets have
    no vector is embedded as "name predicate neighbour"."""
    firsts = [list((r["triplet_ids"] or [])[:RELATION_TRIPLETS]) for r in relations]
    wanted = list(dict.fromkeys(t for ids in firsts for t in ids))
    stored = {
        str(row["id"]): float(row["similarity"])
        for row in tools.store.run("ask/triplet_similarity", {"ids": wanted, "vector": list(goal)})
    }
    bare = [i for i, ids in enumerate(firsts) if not any(t in stored for t in ids)]
    texts = [
        f"{relations[i]['name']} {relations[i]['predicate']} {relations[i]['neighbour_name']}"
        for i in bare
    ]
    embedded = dict(zip(bare, tools.embedder.embed(texts), strict=True)) if texts else {}
    return [
        max(stored[t] for t in ids if t in stored)
        if i not in embedded
        else cosine(goal, embedded[i])
        for i, ids in enumerate(firsts)
    ]


def evolve_graph(tools: Tools, state: AskState, chunk_ids: list[str]) -> None:
    """Extract and write triplets for used chunks that have none yet."""
    with state.timed("store"):
        rows = tools.store.run("ask/chunk_extraction_status", {"ids": chunk_ids})
    todo = [
        ChunkText(r["id"], r["title"] or "", r["text"]) for r in rows if r["extraction"] != "ok"
    ][:EVOLVE_CHUNKS]
    if not todo:
        return
    with state.timed("llm"):
        results = extract_chunks(tools.llm, todo)
    with state.timed("store"):
        state.rounds[-1].extracted = write_extractions(tools.store, tools.embedder, results)
    state.ranked.clear()  # the graph changed: retrieval runs again
