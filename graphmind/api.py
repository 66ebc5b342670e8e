"""The Python API: the same verbs as the command line."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from graphmind.build.pipeline import BuildOptions, BuildPipeline, BuildReport, Progress
from graphmind.config import Settings, load_settings
from graphmind.store import open_store


def build(
    paths: Sequence[str | Path],
    options: BuildOptions | None = None,
    settings: Settings | None = None,
    progress: Progress | None = None,
) -> BuildReport:
    """Build documents at ``paths`` into the configured store (incremental, resumable)."""
    from graphmind.embed import make_embedder
    from graphmind.llm import make_llm

    config = settings or load_settings()
    opts = options or BuildOptions()
    embedder = make_embedder(config)
    llm = make_llm(config, cache_dir=config.state_dir()) if opts.extract == "llm" else None
    with open_store(config) as store:
        pipeline = BuildPipeline(store, embedder, llm, opts, progress)
        return pipeline.run([str(p) for p in paths])
