"""Where an incremental build changed the community layer: the region to recompute.

The link stage notes every entity whose relations changed (``:CommunityChange``
markers, deleted entities included). The region is the new entities (no community holds
them yet), the top-level communities their neighbours belong to (with their
sub-communities) and the top-level communities that lost members. An existing entity that
only gained or lost relations keeps its community until a full run (``graphmind
communities``): in a graph built by fast extraction, the entities a new passage mentions
include hubs (years, countries) whose neighbours span most communities, and following them
made every region the whole graph.
Leiden runs again on the region alone (the edges leaving it are left out: a local move,
as incremental Leiden variants do), so an incremental build's community work grows with
what it changed, not with the store. Without markers (a store from before them, or a
first run), or when the region holds more than ``LOCAL_SHARE`` of the entities, the whole
graph is recomputed instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphmind.store.base import DELETE_BATCH, GraphStore, Projection
from graphmind.store.schema import META_ID

LOCAL_SHARE = 0.5  # a region larger than this share of the entities: recompute everything
MARK_BATCH = 5000  # change markers per write


@dataclass
class Region:
    """The entities to partition again and the communities they replace."""

    entities: list[str]
    replaced: list[str]  # top-level communities and every community below them
    total: int  # entities in the store


def has_communities(store: GraphStore) -> bool:
    """Whether any community is written (before the first run there is nothing to mark,
    and no broad question to answer)."""
    return int(store.run("community/count")[0]["communities"]) > 0


def mark_changed(store: GraphStore, ids: list[str]) -> None:
    """Note entities whose relations changed, for the next community run."""
    store.write_rows("community/mark_changed", [{"id": i} for i in ids], batch_size=MARK_BATCH)


def clear_changes(store: GraphStore) -> None:
    """Forget the change markers (the community layer now reflects them)."""
    store.drain("community/clear_changes", DELETE_BATCH)


def changed_region(store: GraphStore) -> Region | None:
    """The region an incremental community run recomputes; None when the whole graph
    should be (no markers, no communities yet, or too large a region)."""
    changed = store.run("community/changed")
    if not changed or not has_communities(store):
        return None
    new = [r["id"] for r in changed if r["present"] and not r["community"]]
    entities = set(new)
    affected: set[str] = set()
    for row in store.run("community/neighbour_communities", {"ids": new}):
        if row["community"]:
            affected.add(row["community"])
        else:
            entities.add(row["entity"])
    affected.update(r["id"] for r in store.run("community/shrunk"))
    replaced = set(affected)
    for row in store.run("community/members_and_descendants", {"ids": sorted(affected)}):
        entities.update(row["members"])
        replaced.update(row["below"])
    total = int(store.run("community/status", {"id": META_ID})[0]["entities"])
    if len(entities) > LOCAL_SHARE * total:
        return None
    return Region(sorted(entities), sorted(replaced), total)


def region_resolution(store: GraphStore, region: Projection, resolution: float) -> float:
    """Leiden's resolution on a region that partitions it as the whole graph would: the
    modularity's null model counts the whole graph's edge weight, not the region's
    (alone, a small region prefers to split: a 5-person circle and a newcomer linked to
    two of them came out as two groups of three)."""
    total = float(store.run("community/related_weight")[0]["weight"] or 0.0)
    inside = sum(w for _, _, w in region.edges)
    return resolution * inside / total if total > 0 and inside > 0 else resolution


def region_projection(store: GraphStore, region: Region) -> Projection:
    """The entity graph inside the region (its edges to other communities left out)."""
    read = store.read_projection("community/region_projection", {"ids": region.entities})
    inside = set(region.entities)
    return Projection(region.entities, [e for e in read.edges if e[1] in inside])
