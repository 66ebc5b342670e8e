"""The Python API: the same verbs as the command line."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from graphmind.build.pipeline import BuildOptions, BuildPipeline, BuildReport, Progress
from graphmind.communities.pipeline import CommunityOptions, CommunityStats, build_communities
from graphmind.config import Settings, load_settings
from graphmind.store import GraphStore, open_store
from graphmind.store.schema import META_ID

if TYPE_CHECKING:
    from graphmind.embed import Embedder
    from graphmind.llm import LLM


def build(
    paths: Sequence[str | Path],
    options: BuildOptions | None = None,
    settings: Settings | None = None,
    progress: Progress | None = None,
    *,
    communities: bool = True,
    community_options: CommunityOptions | None = None,
    layers: Sequence[str] = (),
) -> BuildReport:
    """Build documents at ``paths`` into the configured store (incremental, resumable);
    when entities changed, recompute the community layer; ``layers=["episodic"]`` adds
    sliding-window episode summaries (for long narratives)."""
    from graphmind.embed import make_embedder
    from graphmind.llm import make_llm

    config = settings or load_settings()
    opts = options or BuildOptions()
    embedder = make_embedder(config)
    llm = make_llm(config, cache_dir=config.state_dir()) if opts.extract == "llm" else None
    with open_store(config) as store:
        report = BuildPipeline(store, embedder, llm, opts, progress).run([str(p) for p in paths])
        if report.interrupted:
            return report
        changed = report.documents_new + report.documents_changed + report.orphans_deleted
        if changed:
            _mark_communities_stale(store, True)
        if communities and _communities_stale(store):
            options_ = community_options or CommunityOptions()
            stats = _communities(store, embedder, llm, options_, progress)
            report.communities = stats.__dict__
        if "episodic" in layers:
            from graphmind.communities.episodes import build_episodes

            report.episodes = build_episodes(store, embedder, llm, progress=progress).__dict__
        if llm is not None:
            report.llm = llm.ledger.as_dict()
    return report


def communities(
    options: CommunityOptions | None = None,
    settings: Settings | None = None,
    progress: Progress | None = None,
    *,
    summarize: bool = True,
) -> CommunityStats:
    """Recompute communities, their summaries and PageRank now."""
    from graphmind.embed import make_embedder
    from graphmind.llm import make_llm

    config = settings or load_settings()
    embedder = make_embedder(config)
    llm = make_llm(config, cache_dir=config.state_dir()) if summarize else None
    with open_store(config) as store:
        return _communities(store, embedder, llm, options or CommunityOptions(), progress)


def _communities(
    store: GraphStore,
    embedder: Embedder,
    llm: LLM | None,
    options: CommunityOptions,
    progress: Progress | None,
) -> CommunityStats:
    stats = build_communities(store, embedder, llm, options, progress)
    _mark_communities_stale(store, False)
    return stats


def _mark_communities_stale(store: GraphStore, stale: bool) -> None:
    store.run("community/mark_stale", {"id": META_ID, "stale": stale}, write=True)


def _communities_stale(store: GraphStore) -> bool:
    row = store.run("community/status", {"id": META_ID})[0]
    return bool(row["stale"]) and int(row["entities"]) > 0
