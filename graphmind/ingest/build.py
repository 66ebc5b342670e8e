"""The one build entry point: every stage of a build, in order, for the API, the command
line and the evaluation alike.

``STAGES`` names them. The document stages (load to link) run per batch of documents in
``BuildPipeline``; the graph-wide ones follow once the documents are written: the
community layer when entities changed (and ``options.communities``), then the optional
layers of ``options.layers``. An interrupted document build returns at once (a re-run
resumes it); the communities are then recomputed by that re-run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphmind.communities.episodes import build_episodes
from graphmind.communities.pipeline import (
    CommunityOptions,
    communities_stale,
    mark_stale,
    refresh_communities,
)
from graphmind.core.progress import Progress
from graphmind.ingest.loaders import LoadFailure
from graphmind.ingest.options import BuildOptions, BuildReport, settle_extract
from graphmind.ingest.pipeline import BuildPipeline
from graphmind.store.base import GraphStore

if TYPE_CHECKING:
    from graphmind.embed import Embedder
    from graphmind.llm import LLM

STAGES = (
    "load",  # find and read the documents
    "plan",  # skip unchanged documents, replace changed ones
    "chunk",
    "extract",  # triplets and entities (the LLM, or spaCy; none for a chunk-only index)
    "embed",
    "write",  # one atomic write per batch of documents
    "link",  # near-duplicate entities, orphans, RELATED edges
    "communities",  # hierarchical Leiden, summaries, PageRank (when entities changed)
    "episodes",  # the optional episodic layer
)

FAST_COMMUNITIES = (
    "summaries list their members' names: a fast build calls no LLM "
    "(--extract llm builds with LLM summaries; a broad question summarises the communities "
    "it reads and keeps their summaries)"
)


def run_build(
    store: GraphStore,
    embedder: Embedder,
    llm: LLM | None,
    paths: Sequence[str],
    options: BuildOptions,
    community_options: CommunityOptions,
    progress: Progress | None = None,
) -> BuildReport:
    """Build ``paths`` into ``store`` through ``STAGES`` (incremental, resumable)."""
    options.check()
    community_options.check()
    options, llm = settle_extract(options, llm)
    report = BuildPipeline(store, embedder, llm, options, progress).run(paths)
    if report.interrupted:
        return report
    if report.documents_written + report.orphans_deleted:
        mark_stale(store, True)
    if options.communities and communities_stale(store):
        stats = refresh_communities(store, embedder, llm, community_options, progress, local=True)
        report.communities = stats.__dict__
        if llm is None and options.extract == "fast" and community_options.summarize:
            report.notes.append(LoadFailure("communities", FAST_COMMUNITIES))
    if "episodic" in options.layers:
        report.episodes = build_episodes(store, embedder, llm, progress=progress).__dict__
    if llm is not None:
        report.llm = llm.ledger.as_dict()
    return report
