"""Expand: the evolving sub-graph and the graph expansion toward the diagnosed gap."""

from __future__ import annotations

from graphmind.ask.options import (
    EVOLVE_CHUNKS,
    EXPAND_ANCHORS,
    EXPAND_ENTITIES,
    EXPAND_POOL,
    EXPAND_RELATIONS,
)
from graphmind.ask.state import AskState, Tools
from graphmind.core.decision import Judgement
from graphmind.extract.extractor import ChunkText, extract_chunks
from graphmind.extract.writer import write_extractions


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
    texts = [f"{r['name']} {r['predicate']} {r['neighbour_name']}" for r in relations]
    vectors = tools.embedder.embed([target, *texts])
    goal = vectors[0]
    scored = sorted(
        zip(relations, vectors[1:], strict=True),
        key=lambda rv: -sum(a * b for a, b in zip(goal, rv[1], strict=True)),
    )
    triplets = [t for r, _ in scored[:EXPAND_RELATIONS] for t in (r["triplet_ids"] or [])]
    rows = tools.store.run("ask/chunks_for_triplets", {"ids": triplets})
    return list(dict.fromkeys(r["chunk"] for r in rows))


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
