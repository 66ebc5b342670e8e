"""What a community summary is written from, read for many communities at once.

A community's context is its members, most central first (PageRank, then id), bounded,
and the strongest ``RELATED`` edges among those members, bounded. Communities are read
in groups: one query for the group's entities and one for their outgoing edges, the
rest is put together here, so a build with thousands of communities makes a few round
trips instead of one per community.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from graphmind.store.base import GraphStore

GROUP_MEMBERS = 2000  # member ids per read (a bigger community is read alone)


def community_contexts(
    store: GraphStore,
    communities: Sequence[Sequence[str]],
    max_entities: int,
    max_relations: int,
    scores: Mapping[str, float] | None = None,
) -> list[dict[str, Any]]:
    """One ``{"entities": [...], "relations": [...]}`` per community, in order; members
    are ranked by ``scores`` where given (PageRank not yet written), else by the
    store's."""
    out: list[dict[str, Any]] = []
    for group in _groups(communities, GROUP_MEMBERS):
        ids = sorted({m for members in group for m in members})
        entities = {r["id"]: r for r in store.run("community/context_entities", {"ids": ids})}
        if scores:
            for key, row in entities.items():
                row["pagerank"] = scores.get(key, row["pagerank"])
        edges: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
        for r in store.run("community/context_relations", {"ids": ids}):
            edges[r["a"]].append(r)
        out += [_context(m, entities, edges, max_entities, max_relations) for m in group]
    return out


def _groups(communities: Sequence[Sequence[str]], bound: int) -> Iterator[Sequence[Sequence[str]]]:
    """Consecutive communities whose members add up to at most ``bound``."""
    start, size = 0, 0
    for i, members in enumerate(communities):
        if size and size + len(members) > bound:
            yield communities[start:i]
            start, size = i, 0
        size += len(members)
    if start < len(communities):
        yield communities[start:]


def _context(
    members: Sequence[str],
    entities: Mapping[str, Mapping[str, Any]],
    edges: Mapping[str, Sequence[Mapping[str, Any]]],
    max_entities: int,
    max_relations: int,
) -> dict[str, Any]:
    found = [entities[m] for m in dict.fromkeys(members) if m in entities]
    found.sort(key=lambda e: (-(e["pagerank"] or 0.0), e["id"]))
    top = found[:max_entities]
    names = {e["id"]: e["name"] for e in top}
    relations = [r for e in top for r in edges.get(e["id"], ()) if r["b"] in names]
    relations.sort(key=lambda r: (-(r["weight"] or 0.0), r["a"], r["b"], r["predicate"] or ""))
    return {
        "entities": [
            {"name": e["name"], "type": e["type"], "description": e["description"]} for e in top
        ],
        "relations": [
            {
                "subject": names[r["a"]],
                "predicate": r["predicate"],
                "object": names[r["b"]],
                "weight": r["weight"],
            }
            for r in relations[:max_relations]
        ],
    }
