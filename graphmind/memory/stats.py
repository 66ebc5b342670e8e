"""Evidence stats: what profiles and the planner read, kept up to date on write.

The backward traversal over a chunk's incoming ``EVALUATED`` edges is the source of truth
(``memory/evidence_profiles``, ``memory/planner_exclusions``, ``audit/evidence_history``),
but its cost grows with how often the chunk was ever judged. So the writes that change
what it would find keep its result at hand:

* ``(:Chunk)-[:HAS_STATS]->(:EvidenceStats)``: ``incoming`` (every evaluation),
  ``correct`` and ``used_correct`` (evaluations in correct decisions, and those that used
  the chunk), and a window of the most recent correct evaluations, newest first (``at``,
  ``decisions``, ``verdicts``, ``reasons``: parallel lists): always the newest ones, at
  least ``WINDOW`` of them (or all, when fewer) and at most ``CAPACITY``. A profile needs
  at most ``max(tmax, recent)`` of them, so with ROZA's defaults the window gives exactly
  the traversal's sample.
* ``(:QueryType)-[:TYPE_STATS {correct, rejected}]->(:Chunk)``: the planner's counts per
  query type and chunk.
* On each ``QueryType``, ``recipes``, ``recipe_support`` and ``recipe_correct`` (parallel
  lists): per retrieval recipe, its decisions with feedback and the correct ones (what
  the planner picks a recipe by; ``memory/planner_configs`` is the traversal).

``memory/write_decision`` counts a new decision's evaluations in the same atomic query,
``memory/set_outcome`` moves a decision's evaluations in or out when feedback makes it
correct or takes that back (refilling, to ``CAPACITY``, a window it leaves below
``WINDOW`` by walking that chunk's edges: once per ``CAPACITY - WINDOW`` removals at
most), and pruning recomputes the stats of the chunks it cut from the edges it kept: the
stats describe the edges in the graph, so a pruned chunk's counts cover what was kept,
exactly as the traversal does. (With the stats, pruning is no longer needed for speed;
it bounds storage, and costs the long-run counts, by the user's choice.) A chunk is
marked stale while it is being pruned; stale stats are read by traversal.
"""

from __future__ import annotations

from collections.abc import Sequence

from graphmind.store.base import GraphStore, iter_batches
from graphmind.store.schema import META_ID

WINDOW = 50  # correct evaluations a window holds at least: ROZA's tmax (50) >= recent (20)
CAPACITY = 100  # and at most: the slack spares most removals a walk over the chunk's edges
VERSION = 2  # of the stats (2: recipe counts); a store whose meta node says otherwise
# is rebuilt once
BATCH = 200  # chunks per refresh query


def ensure_stats(store: GraphStore) -> bool:
    """Build the stats of a store written before they existed (once); True when built."""
    rows = store.run("memory/stats_version", {"id": META_ID})
    if rows and rows[0]["version"] == VERSION:
        return False
    rebuild_stats(store)
    return True


def rebuild_stats(store: GraphStore) -> int:
    """Recompute every evaluated chunk's stats and index every query type; returns the
    number of chunks."""
    ids = [str(r["id"]) for r in store.run("memory/evaluated_chunks")]
    refresh_stats(store, ids)
    store.run("memory/refresh_recipe_stats", write=True)
    store.run("memory/index_query_types", write=True)
    store.run("memory/set_stats_version", {"id": META_ID, "version": VERSION}, write=True)
    return len(ids)


def refresh_stats(store: GraphStore, ids: Sequence[str]) -> None:
    """Recompute the stats of ``ids`` from their edges (a batch of chunks per query)."""
    for batch in iter_batches(list(dict.fromkeys(ids)), BATCH):
        store.run("memory/refresh_stats", {"ids": list(batch), "capacity": CAPACITY}, write=True)


def mark_stale(store: GraphStore, ids: Sequence[str]) -> None:
    """Have ``ids`` read by traversal until ``refresh_stats`` recomputes them."""
    store.run("memory/mark_stale", {"ids": list(ids)}, write=True)
