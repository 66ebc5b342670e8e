"""Where an incremental build changed the community layer, and how little to redo.

The link stage notes every entity whose relations changed (``:CommunityChange``
markers, deleted entities included). A new entity joins the communities of the neighbour
it is tied to most (the top-level community with the most tie weight, the smaller on a
tie, then that neighbour's community at every level), as Leiden's local moving phase
would place one node: those communities keep their id, title and summary and gain a
member, so this costs what the change costs, not what the communities hold (re-running
Leiden on every community a new entity touched made the region most of a fast graph: its
new passages name hubs, years and countries, whose communities are the largest). New
entities tied only to new ones follow them once they are placed. What is left goes to
Leiden again, on a region alone (the edges leaving it left out, as incremental Leiden
variants do): new entities tied to no community (their own new communities), the
top-level communities that lost members (with their sub-communities), and those whose
deepest community would grow past the size limit while a level below is allowed. An
existing entity that only gained or lost relations keeps its community, and a joined
community its summary, until a full run (``graphmind communities``). Without markers (a
store from before them, or a first run), or when the region holds more than
``LOCAL_SHARE`` of the entities, the whole graph is recomputed instead.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from graphmind.store.base import DELETE_BATCH, GraphStore, Projection
from graphmind.store.schema import META_ID

LOCAL_SHARE = 0.5  # a region larger than this share of the entities: recompute everything
MARK_BATCH = 5000  # change markers per write
ATTACH_BATCH = 1000  # communities per attach write
PASSES = 4  # placement passes: a new entity tied only to new ones waits for them


@dataclass
class Region:
    """The entities to partition again and the communities they replace; the new
    entities that join existing communities instead."""

    entities: list[str]
    replaced: list[str]  # top-level communities and every community below them
    total: int  # entities in the store
    joins: dict[str, list[str]] = field(default_factory=dict)  # community -> new members


@dataclass
class _Tie:
    """A neighbour of a new entity: the tie's weight and the neighbour's communities,
    top level first (empty while it has none)."""

    neighbour: str
    weight: float
    chain: list[str]


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


def changed_region(store: GraphStore, max_size: int, max_levels: int) -> Region | None:
    """What an incremental community run redoes; None when the whole graph should be
    (no markers, no communities yet, or too large a region). ``max_size`` and
    ``max_levels``: the run's, which a joined community must stay within."""
    changed = store.run("community/changed")
    if not changed or not has_communities(store):
        return None
    new = sorted({r["id"] for r in changed if r["present"] and not r["community"]})
    ties, size, level = _ties(store, new)
    placed = _place(new, ties, size)
    recompute = {r["id"] for r in store.run("community/shrunk")}
    grows: dict[str, int] = defaultdict(int)
    for chain in placed.values():
        grows[chain[-1]] += 1
    for chain in placed.values():
        leaf = chain[-1]
        if size[leaf] + grows[leaf] > max_size and level[leaf] + 1 < max_levels:
            recompute.add(chain[0])  # it would have been split: Leiden decides
    joining = {e for e, chain in placed.items() if chain[0] not in recompute}
    entities = {e for e in new if e not in joining}
    # an entity left to Leiden takes along its neighbours that have no community to join
    entities.update(
        t.neighbour
        for e in sorted(entities)
        for t in ties.get(e, [])
        if not t.chain and t.neighbour not in joining
    )
    joins: dict[str, list[str]] = defaultdict(list)
    for e in sorted(joining):
        for community in placed[e]:
            joins[community].append(e)
    replaced = set(recompute)
    for row in store.run("community/members_and_descendants", {"ids": sorted(recompute)}):
        entities.update(row["members"])
        replaced.update(row["below"])
    total = int(store.run("community/status", {"id": META_ID})[0]["entities"])
    if len(entities) + len(joining) > LOCAL_SHARE * total:
        return None
    return Region(sorted(entities), sorted(replaced), total, dict(joins))


def _ties(
    store: GraphStore, new: list[str]
) -> tuple[dict[str, list[_Tie]], dict[str, int], dict[str, int]]:
    """Each new entity's ties, and the size and level of every community they reach."""
    ties: dict[str, list[_Tie]] = defaultdict(list)
    size: dict[str, int] = {}
    level: dict[str, int] = {}
    for row in store.run("community/neighbour_ties", {"ids": new}):
        chain = sorted(row["communities"] or [])
        for at, community, members in chain:
            size[community], level[community] = int(members or 0), int(at)
        ties[row["entity"]].append(
            _Tie(row["neighbour"], float(row["weight"]), [c for _, c, _ in chain])
        )
    return ties, size, level


def _place(
    new: list[str], ties: dict[str, list[_Tie]], size: dict[str, int]
) -> dict[str, list[str]]:
    """The communities (top level first) each new entity joins: those of the neighbour it
    is tied to most within the top-level community it is tied to most (the smaller on a
    tie). A new entity tied only to new ones follows them once they are placed; one tied
    to no community is left out (Leiden gives it one)."""
    placed: dict[str, list[str]] = {}
    for _ in range(PASSES):
        moved = False
        for e in new:
            if e in placed:
                continue
            weight: dict[str, float] = defaultdict(float)
            strongest: dict[str, tuple[float, str, list[str]]] = {}
            for tie in ties.get(e, []):
                chain = tie.chain or placed.get(tie.neighbour, [])
                if not chain:
                    continue
                top = chain[0]
                weight[top] += tie.weight
                best = strongest.get(top)
                if best is None or (-tie.weight, tie.neighbour) < (-best[0], best[1]):
                    strongest[top] = (tie.weight, tie.neighbour, chain)
            if weight:
                top = min(weight, key=lambda c: (-weight[c], size.get(c, 0), c))
                placed[e] = strongest[top][2]
                moved = True
        if not moved:
            break
    return placed


def attach(store: GraphStore, joins: dict[str, list[str]]) -> None:
    """Add the joining entities to their communities (ids, titles and summaries kept)."""
    rows = [{"community": c, "entities": members} for c, members in sorted(joins.items())]
    store.write_rows("community/attach_members", rows, batch_size=ATTACH_BATCH)


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
