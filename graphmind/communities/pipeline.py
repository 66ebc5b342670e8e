"""The community layer: hierarchical Leiden, LLM summaries, PageRank.

Community ids hash their level and members, so a re-run on an unchanged graph finds
every community already there and changes nothing; only communities whose membership
changed are summarised again.
"""

from __future__ import annotations

import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from graphmind.communities.algorithms import Community, hierarchical_leiden, modularity
from graphmind.communities.centrality import (
    GDS_GRAPH,
    drop_gds_projection,
    ensure_gds_projection,
    entity_pagerank,
    write_pagerank,
)
from graphmind.communities.context import community_contexts
from graphmind.communities.episodes import cap
from graphmind.communities.incremental import (
    attach,
    changed_region,
    clear_changes,
    region_projection,
    region_resolution,
)
from graphmind.communities.report import (
    MAX_FACTS,
    MAX_SUMMARY_CHARS,
    MAX_TITLE_CHARS,
    CommunityReport,
    embedding_text,
    messages_for,
)
from graphmind.core.errors import BadInputError
from graphmind.core.ids import digest
from graphmind.core.progress import Progress, counter
from graphmind.store.base import DELETE_BATCH, GraphStore, Projection, iter_batches
from graphmind.store.schema import META_ID

if TYPE_CHECKING:
    from graphmind.embed import Embedder
    from graphmind.llm import LLM

TASK = "summarize"
WRITE_BATCH = 200  # communities per write (each carries its embedding)
PARENT_BATCH = 2000  # parent links per write
FALLBACK_NAMES = 12  # member names in a summary written without an LLM
TITLE_NAMES = 3  # of those, named in its title
ProjectionKind = Literal["related", "cooccurrence"]


@dataclass
class CommunityOptions:
    """How communities are found and summarised (``summarize`` False, or no LLM: a
    community is titled by its members' names)."""

    projection: ProjectionKind = "related"
    max_size: int = 50
    max_levels: int = 3
    min_size: int = 2
    resolution: float = 1.0
    seed: int = 42
    max_entities: int = 30
    max_relations: int = 40
    summarize: bool = True

    def check(self) -> None:
        """BadInputError for values that would do something else than asked (``max_levels``
        0 would delete every community)."""
        if self.max_levels < 1:
            raise BadInputError(f"levels must be at least 1 (got {self.max_levels})")
        if self.max_size < 2:
            raise BadInputError(
                f"the largest community size must be at least 2 (got {self.max_size})"
            )
        if not self.resolution > 0:
            raise BadInputError(f"the resolution must be above 0 (got {self.resolution})")


@dataclass
class CommunityStats:
    """What a community run did."""

    algorithm: str = ""
    scope: str = "full"  # "local": only the region an incremental build changed
    region: int = 0  # entities partitioned again, in a local run
    joined: int = 0  # new entities that joined existing communities, in a local run
    pagerank: str = ""
    levels: dict[int, int] = field(default_factory=dict)
    modularity: float | None = None
    new: int = 0
    unchanged: int = 0
    deleted: int = 0
    summarised: int = 0
    summary_failures: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    cpu_seconds: dict[str, float] = field(default_factory=dict)  # this process's, all threads


def refresh_communities(
    store: GraphStore,
    embedder: Embedder,
    llm: LLM | None,
    options: CommunityOptions | None = None,
    progress: Progress | None = None,
    *,
    local: bool = False,
) -> CommunityStats:
    """``build_communities``, then mark the community layer current."""
    stats = build_communities(store, embedder, llm, options, progress, local=local)
    mark_stale(store, False)
    return stats


def mark_stale(store: GraphStore, stale: bool) -> None:
    """Record whether entities changed since the communities were computed."""
    store.run("community/mark_stale", {"id": META_ID, "stale": stale}, write=True)


def communities_stale(store: GraphStore) -> bool:
    """True when entities changed since the last community run and there are entities."""
    row = store.run("community/status", {"id": META_ID})[0]
    return bool(row["stale"]) and int(row["entities"]) > 0


@dataclass
class _Planned:
    id: str
    level: int
    members: tuple[str, ...]
    parent: str | None


def build_communities(
    store: GraphStore,
    embedder: Embedder,
    llm: LLM | None,
    options: CommunityOptions | None = None,
    progress: Progress | None = None,
    *,
    local: bool = False,
) -> CommunityStats:
    """Detect, summarise, embed and write communities; store PageRank on entities.
    ``local``: only where the entities changed since the last run (``incremental``),
    when the store says where and that is a small part of it."""
    opts = options or CommunityOptions()
    opts.check()
    stats = CommunityStats()
    started, cpu = time.perf_counter(), time.process_time()
    projection: Projection | None = None
    region = None
    if local and opts.projection == "related" and not store.has_gds():
        region = changed_region(store, opts.max_size, opts.max_levels)
    if region is not None:
        attach(store, region.joins)
        projection = region_projection(store, region)
        gamma = region_resolution(store, projection, opts.resolution)
        communities = _leiden(projection, opts, gamma)
        stats.algorithm = "leiden (leidenalg + igraph), on the changed region"
        stats.scope, stats.region = "local", len(region.entities)
        stats.joined = len({e for members in region.joins.values() for e in members})
    elif store.has_gds() and opts.projection == "related":
        ensure_gds_projection(store, fresh=True)
        communities = _gds_leiden(store, opts)
        stats.algorithm = "gds.leiden"
    else:
        query = "community/entity_projection"
        if opts.projection == "cooccurrence":
            query = "community/cooccurrence_projection"
        projection = store.read_projection(query)
        communities = _leiden(projection, opts)
        stats.algorithm = "leiden (leidenalg + igraph)"
    if projection is not None:  # of the whole graph, or of the region
        top = [c.members for c in communities if c.level == 0]
        stats.modularity = modularity(projection, top) if top else None
    stats.seconds["detect"] = time.perf_counter() - started
    stats.cpu_seconds["detect"] = time.process_time() - cpu
    planned = _plan(communities, opts.min_size)
    for p in planned:
        stats.levels[p.level] = stats.levels.get(p.level, 0) + 1

    t0, c0 = time.perf_counter(), time.process_time()
    scores: dict[str, float] | None = None  # None: GDS wrote them, or none changed
    if region is not None:  # the region's scores, on the whole graph's scale
        scale = len(region.entities) / max(1, region.total)
        stats.pagerank = "kept (no entity partitioned again)"
        if region.entities:
            stats.pagerank, scores = entity_pagerank(store, projection, scale=scale)
    else:
        related = projection if opts.projection == "related" else None
        stats.pagerank, scores = entity_pagerank(store, related)
    beside = scores if scores and store.concurrent else None  # written beside, below
    if scores and beside is None:
        write_pagerank(store, scores)
    stats.seconds["pagerank"] = time.perf_counter() - t0
    stats.cpu_seconds["pagerank"] = time.process_time() - c0

    existing = {r["id"]: r for r in store.run("community/existing")}
    todo = [p for p in planned if not (p.id in existing and existing[p.id]["summarised"])]
    stats.new, stats.unchanged = len(todo), len(planned) - len(todo)
    t0, c0 = time.perf_counter(), time.process_time()
    members = [p.members for p in todo]
    contexts = community_contexts(store, members, opts.max_entities, opts.max_relations, scores)
    # where the store takes a write beside this thread's work, the scores are written
    # (the server re-indexes each entity's vector on FalkorDB) while summaries are
    # written and embedded
    with ThreadPoolExecutor(1, thread_name_prefix="graphmind-pagerank") as side:
        writing = side.submit(write_pagerank, store, beside) if beside else None
        summariser = llm if opts.summarize else None
        rows = _summarise(embedder, summariser, todo, contexts, stats, progress)
        if writing is not None:
            writing.result()
    stats.seconds["summarise"] = time.perf_counter() - t0
    stats.cpu_seconds["summarise"] = time.process_time() - c0

    t0, c0 = time.perf_counter(), time.process_time()
    for batch in iter_batches(sorted(rows, key=lambda r: r["level"]), WRITE_BATCH):
        store.write_rows("community/write_communities", batch, batch_size=len(batch))
    parents = [{"id": p.id, "parent": p.parent} for p in planned if p.parent]
    store.write_rows("community/link_parents", parents, batch_size=PARENT_BATCH)
    keep = [p.id for p in planned]
    if region is not None:  # the region's old communities that the new ones do not repeat
        kept = set(keep)
        gone = [c for c in region.replaced if c not in kept]
        for batch in iter_batches(gone, DELETE_BATCH):
            rows = store.run("community/delete_ids", {"ids": batch}, write=True)
            stats.deleted += int(rows[0]["deleted"]) if rows else 0
    else:
        store.drain("community/delete_stale_relationships", DELETE_BATCH, {"keep": keep})
        stats.deleted = store.drain("community/delete_stale", DELETE_BATCH, {"keep": keep})
    clear_changes(store)
    stats.seconds["write"] = time.perf_counter() - t0
    stats.cpu_seconds["write"] = time.process_time() - c0
    if store.has_gds():
        drop_gds_projection(store)
    stats.seconds["total"] = time.perf_counter() - started
    stats.cpu_seconds["total"] = time.process_time() - cpu
    return stats


def _leiden(
    projection: Projection, opts: CommunityOptions, top_resolution: float | None = None
) -> list[Community]:
    """Hierarchical Leiden with the options' seed, resolution and size bounds."""
    return hierarchical_leiden(
        projection,
        seed=opts.seed,
        resolution=opts.resolution,
        max_size=opts.max_size,
        max_levels=opts.max_levels,
        top_resolution=top_resolution,
    )


def _gds_leiden(store: GraphStore, opts: CommunityOptions) -> list[Community]:
    """GDS Leiden's intermediate communities as levels (coarsest = level 0)."""
    rows = store.run(
        "community/gds_leiden",
        {"graph": GDS_GRAPH, "seed": opts.seed, "resolution": opts.resolution},
    )
    depth = max((len(r["intermediateCommunityIds"] or []) for r in rows), default=1) or 1
    keys_per_level: list[dict[str, int]] = []
    for level in range(min(depth, opts.max_levels)):
        keys = {}
        for r in rows:
            chain = r["intermediateCommunityIds"] or [r["communityId"]]
            keys[r["id"]] = chain[max(0, len(chain) - 1 - level)]
        keys_per_level.append(keys)
    communities: list[Community] = []
    index_of: dict[tuple[int, int], int] = {}
    for level, keys in enumerate(keys_per_level):
        groups: dict[int, list[str]] = defaultdict(list)
        for node, key in keys.items():
            groups[key].append(node)
        for key, members in sorted(groups.items(), key=lambda kv: sorted(kv[1])[0]):
            parent = None
            if level:
                parent_key = keys_per_level[level - 1][members[0]]
                parent = index_of[(level - 1, parent_key)]
                if len(communities[parent].members) == len(members):
                    index_of[(level, key)] = parent  # not split: no new community
                    continue
            index_of[(level, key)] = len(communities)
            communities.append(Community(level, tuple(sorted(members)), parent))
    return communities


def _plan(communities: list[Community], min_size: int) -> list[_Planned]:
    """Deterministic ids; communities below ``min_size`` are left out."""
    ids = [digest("community", str(c.level), *c.members) for c in communities]
    planned = []
    for c, cid in zip(communities, ids, strict=True):
        if len(c.members) >= min_size:
            parent = ids[c.parent] if c.parent is not None else None
            planned.append(_Planned(cid, c.level, c.members, parent))
    return planned


def _summarise(
    embedder: Embedder,
    llm: LLM | None,
    todo: list[_Planned],
    contexts: list[dict[str, Any]],
    stats: CommunityStats,
    progress: Progress | None,
) -> list[dict[str, Any]]:
    """Summaries (LLM, or the member names when there is none) of ``todo`` from their
    ``contexts``, embedded, as write rows."""
    reports: list[CommunityReport | None] = [None] * len(todo)
    if llm is not None and todo:
        if progress is not None:
            progress.start("summaries", len(todo))
        outputs = llm.structured_many(
            TASK,
            [messages_for(c["entities"], c["relations"]) for c in contexts],
            CommunityReport,
            on_done=counter(progress, "summaries"),
        )
        for i, output in enumerate(outputs):
            if isinstance(output, CommunityReport):
                reports[i] = output
                stats.summarised += 1
            else:
                stats.summary_failures += 1
    rows = []
    finished = [r or _fallback(c) for r, c in zip(reports, contexts, strict=True)]
    vectors = embedder.embed([embedding_text(r) for r in finished]) if finished else []
    for p, r, vector, generated in zip(todo, finished, vectors, reports, strict=True):
        rows.append(
            {
                "id": p.id,
                "level": p.level,
                "members": list(p.members),
                "parent": p.parent,
                "title": r.title,
                "summary": r.summary,
                "key_facts": r.key_facts,
                "algorithm": stats.algorithm,
                "embedding": vector,
                "summary_status": "llm" if generated is not None else "names",
            }
        )
    return rows


def _fallback(context: dict[str, Any]) -> CommunityReport:
    """A summary from the member names, when no LLM wrote one (cut to the model's limits)."""
    names = [e["name"] for e in context["entities"]][:FALLBACK_NAMES]
    facts = [f"{r['subject']} {r['predicate']} {r['object']}" for r in context["relations"] if r]
    return CommunityReport(
        title=cap(", ".join(names[:TITLE_NAMES]) or "community", MAX_TITLE_CHARS),
        summary=cap("Entities: " + ", ".join(names) + ".", MAX_SUMMARY_CHARS),
        key_facts=facts[:MAX_FACTS],
    )
