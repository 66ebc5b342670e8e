"""Storage growth: keep only the N most recent evaluations of each evidence item.

Every answer adds one ``EVALUATED`` edge per judged candidate, so a busy graph grows
without bound. Profiles only sample the ``recent`` (20) newest correct evaluations once
an item has more than ``tmax`` (50), so keeping at least ``tmax`` per item leaves every
sampled profile's verdict distribution and reasons nearly unchanged; what is lost is the
long-run count ("evaluated n times") and the reliability over the whole history, which
then covers the kept window only. ``scripts/bench_profiles.py`` measures the drift.

Profiles and the planner read stats kept on write (``memory.stats``), so pruning is no
longer what keeps them fast; it bounds storage. The stats follow the edges: the chunks a
batch prunes are marked stale first (read by traversal meanwhile), then recomputed from
the edges kept, so a pruned profile is what the traversal gives. Stats a pruning left
stale (an interrupted run) are recomputed by the next one, and stats left by chunks
that are gone (a changed document replaces its chunks) are deleted.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphmind.core.errors import BadInputError
from graphmind.memory.stats import mark_stale, refresh_stats
from graphmind.store.base import DELETE_BATCH, GraphStore

DEFAULT_KEEP = 50
BATCH = 200  # evidence items per query at most
EDGES = DELETE_BATCH  # EVALUATED edges deleted per query (transaction) at most


@dataclass
class PruneOptions:
    """How many evaluations ``graphmind prune`` keeps per evidence item."""

    keep: int = DEFAULT_KEEP


@dataclass
class PruneReport:
    """What pruning found and removed."""

    keep: int
    items: int  # evidence items over the limit
    deleted: int  # EVALUATED edges removed (or that would be, on a dry run)
    dry_run: bool


def prune_evaluations(
    store: GraphStore, keep: int = DEFAULT_KEEP, *, dry_run: bool = False
) -> PruneReport:
    """Delete all but the ``keep`` most recent EVALUATED edges of every evidence item,
    a batch of items per query (each batch atomic, deleting at most ``EDGES`` edges)."""
    if keep < 1:
        raise BadInputError("keep at least one evaluation per evidence item")
    over = store.run("memory/prune_candidates", {"keep": keep})
    excess = sum(int(r["n"]) - keep for r in over)
    if dry_run:
        return PruneReport(keep, len(over), excess, dry_run)
    refresh_stats(store, [str(r["id"]) for r in store.run("memory/stale_stats")])
    deleted = 0
    for batch in _bounded(over, keep):
        mark_stale(store, batch)
        deleted += store.drain("memory/prune_evaluations", EDGES, {"ids": batch, "keep": keep})
        refresh_stats(store, batch)
    store.run("memory/sweep_stats", write=True)
    return PruneReport(keep, len(over), deleted, False)


def _bounded(over: Sequence[Mapping[str, Any]], keep: int) -> Iterator[list[str]]:
    """Items in groups of at most ``BATCH`` whose excess edges add up to at most
    ``EDGES``; an item with more excess than that forms a group of its own."""
    group: list[str] = []
    excess = 0
    for row in over:
        n = int(row["n"]) - keep
        if group and (excess + n > EDGES or len(group) == BATCH):
            yield group
            group, excess = [], 0
        group.append(str(row["id"]))
        excess += n
    if group:
        yield group
