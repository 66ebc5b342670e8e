"""The Python API: the same verbs as the command line."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from graphmind.communities.pipeline import CommunityOptions, CommunityStats, refresh_communities
from graphmind.config import Settings, load_settings
from graphmind.core.errors import BadInputError, ConfigError, EmptyStoreError, NotFoundError
from graphmind.core.progress import Progress
from graphmind.factories import open_store
from graphmind.ingest.documents import LIST_LIMIT
from graphmind.ingest.options import BuildOptions, BuildReport

if TYPE_CHECKING:
    from graphmind.ask.options import AskOptions
    from graphmind.core.decision import Decision, Round
    from graphmind.eval.options import EvalOptions
    from graphmind.ingest.documents import DeleteReport, DocumentDetail, DocumentInfo
    from graphmind.memory.feedback import FeedbackResult
    from graphmind.memory.prune import PruneReport


def build(
    paths: Sequence[str | Path],
    options: BuildOptions | None = None,
    settings: Settings | None = None,
    progress: Progress | None = None,
    *,
    community_options: CommunityOptions | None = None,
) -> BuildReport:
    """Build documents at ``paths`` into the configured store (incremental, resumable)
    through ``ingest.build.STAGES``: when entities changed, the community layer is
    recomputed (``options.communities``); ``options.layers=("episodic",)`` adds
    sliding-window episode summaries (for long narratives). Options left out are the
    settings' ``[build]`` and ``[communities]``."""
    from graphmind.factories import build_extract, make_embedder, make_llm
    from graphmind.ingest.build import run_build

    config = settings or load_settings()
    opts = options or config.build
    community = community_options or config.communities
    opts.check()
    community.check()
    opts = replace(opts, extract=build_extract(config, opts.extract))
    embedder = make_embedder(config)
    llm = make_llm(config, cache_dir=config.state_dir()) if opts.extract == "llm" else None
    with open_store(config) as store:
        return run_build(store, embedder, llm, [str(p) for p in paths], opts, community, progress)


def documents(
    match: str | None = None, *, limit: int = LIST_LIMIT, settings: Settings | None = None
) -> list[DocumentInfo]:
    """The documents in the store (by source); ``match`` filters on title or source."""
    from graphmind.ingest.documents import list_documents

    with open_store(settings or load_settings(), shared=True) as store:
        return list_documents(store, match=match, limit=limit)


def document(ref: str, settings: Settings | None = None) -> DocumentDetail:
    """One document (by id, title, source or file path) with its chunks and what hangs
    on them: triplets, entities, communities, episodes, decisions."""
    from graphmind.ingest.documents import show_document

    with open_store(settings or load_settings(), shared=True) as store:
        return show_document(store, ref)


def delete_documents(
    refs: Sequence[str],
    *,
    dry_run: bool = False,
    allow_many: bool = False,
    settings: Settings | None = None,
) -> DeleteReport:
    """Delete documents with their chunks, the triplets and entities only they held, and
    the communities and episodes derived from them; decisions that used them keep their
    record with a ``removed_evidence`` note. ``dry_run`` only counts."""
    from graphmind.ingest.documents import delete_documents as delete

    with open_store(settings or load_settings()) as store:
        return delete(store, list(refs), dry_run=dry_run, allow_many=allow_many)


def ask(
    question: str,
    options: AskOptions | None = None,
    settings: Settings | None = None,
    on_round: Callable[[Round], None] | None = None,
) -> Decision:
    """Answer ``question`` from the configured store; the decision is written to it.
    ``options`` left out: the settings' ``[ask]``."""
    from graphmind.ask.loop import AskLoop
    from graphmind.factories import make_embedder, make_llm

    if not question.strip():
        raise BadInputError("the question is empty")
    config = settings or load_settings()
    llm = make_llm(config, cache_dir=config.state_dir())
    if llm is None:
        raise ConfigError(
            "no LLM is configured: run scripts/fetch_model.py for the offline model, or set "
            "GRAPHMIND_LLM_BASE_URL and GRAPHMIND_LLM_MODEL"
        )
    embedder = make_embedder(config)
    with open_store(config, shared=True) as store:
        if store.counts()["Chunk"] == 0:
            raise EmptyStoreError(
                f"the store {store.location} has no documents: run graphmind build"
            )
        return AskLoop(store, embedder, llm, options or config.ask, on_round).ask(question)


def trace(decision_id: str, settings: Settings | None = None, *, create: bool = True) -> Decision:
    """A past decision read back from the graph (``create=False``: a missing store is
    refused, not created, and nothing is written)."""
    from graphmind.memory.decisions import read_decision

    with open_store(settings or load_settings(), shared=True, create=create) as store:
        found = read_decision(store, decision_id)
    if found is None:
        raise NotFoundError(f"no decision {decision_id!r} in the store")
    return found


def feedback(
    decision_id: str,
    *,
    correct: bool | None = None,
    gold: str | None = None,
    settings: Settings | None = None,
) -> FeedbackResult:
    """Mark a past decision correct or incorrect, or score it against a gold answer
    (token F1 >= 0.8 counts as correct). Idempotent; a later call corrects an earlier one."""
    from graphmind.memory.feedback import record_feedback

    with open_store(settings or load_settings(), shared=True) as store:
        return record_feedback(store, decision_id, correct=correct, gold=gold)


def prune(
    keep: int | None = None, *, dry_run: bool = False, settings: Settings | None = None
) -> PruneReport:
    """Keep only the ``keep`` most recent evaluations of each evidence item (left out:
    the settings' ``[prune] keep``)."""
    from graphmind.memory.prune import prune_evaluations

    config = settings or load_settings()
    with open_store(config) as store:
        return prune_evaluations(
            store, config.prune.keep if keep is None else keep, dry_run=dry_run
        )


def evaluate(
    options: EvalOptions,
    run_dir: str | Path,
    settings: Settings | None = None,
    say: Callable[[str], None] = lambda _: None,
) -> Path:
    """Run (or resume) an evaluation in ``run_dir``; returns the Markdown report's path."""
    from graphmind.eval.runner import run_eval

    return run_eval(Path(run_dir), options, settings or load_settings(), say)


def communities(
    options: CommunityOptions | None = None,
    settings: Settings | None = None,
    progress: Progress | None = None,
) -> CommunityStats:
    """Recompute communities, their summaries (``options.summarize``) and PageRank now;
    ``options`` left out: the settings' ``[communities]``."""
    from graphmind.factories import make_embedder, make_llm

    config = settings or load_settings()
    opts = options or config.communities
    opts.check()
    embedder = make_embedder(config)
    llm = make_llm(config, cache_dir=config.state_dir()) if opts.summarize else None
    with open_store(config) as store:
        return refresh_communities(store, embedder, llm, opts, progress)
