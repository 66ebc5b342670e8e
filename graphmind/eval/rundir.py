"""An evaluation's run directory: what it is for, its corpus and its stores.

``run.json`` pins the evaluation a directory holds (another one is refused). The corpus is
built once into ``stores/base.db`` and copied for each configuration; with ``store``
(``graphmind eval --store URI``) it is built once into the user's store instead, marked
with the run, and put back to that base build before each configuration.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphmind.communities.pipeline import CommunityOptions
from graphmind.config import Settings
from graphmind.core.errors import BadInputError, ConfigError, InterruptedBuildError
from graphmind.core.progress import Progress
from graphmind.eval.datasets import EvalDataset, load_dataset, write_corpus
from graphmind.eval.options import EvalOptions
from graphmind.factories import open_store
from graphmind.ingest.options import BuildOptions
from graphmind.store import GraphStore
from graphmind.store.base import DELETE_BATCH
from graphmind.store.schema import META_ID, NODE_LABELS

if TYPE_CHECKING:
    from graphmind.embed import Embedder

RUN_FILE = "run.json"
CONSISTENCY_FILE = "consistency.jsonl"
BUILT_MARK = "built"
BASE_FILE = "base.json"  # the base build's counts, for a run on one shared store


Report = Callable[[str], None]


@dataclass
class Run:
    """One evaluation in its run directory: its options, settings and dataset, and where it
    reports progress."""

    options: EvalOptions
    run_dir: Path
    settings: Settings
    say: Report
    dataset: EvalDataset = field(init=False)


@contextmanager
def open_base_store(
    run_dir: Path,
    options: EvalOptions,
    settings: Settings,
    embedder: Embedder,
    say: Report = lambda _: None,
    progress: Progress | None = None,
) -> Iterator[tuple[GraphStore, Run]]:
    """The run's base build, built first when needed (the run directory's own FalkorDB
    Lite store, or ``options.store``), with the run it belongs to: for measurements that
    only read the corpus."""
    run = start_run(run_dir, replace(options, configs=()), settings, say)
    if options.store is None:
        build_stores(run, embedder, progress)
        with open_store(store_settings(run, "base")) as store:  # its indexes ready
            yield store, run
        return
    shared = settings.model_copy(update={"store": options.store})
    with open_store(shared, ensure_schema=False) as store:
        build_shared(run, store, embedder, progress)
        yield store, run


def start_run(run_dir: Path, options: EvalOptions, settings: Settings, say: Report) -> Run:
    """The run with its questions and corpus loaded, its directory bound to it (``bind``)."""
    run = Run(options, run_dir, settings, say)
    run.dataset = load_dataset(
        options.dataset,
        options.data_root,
        limit=options.limit,
        seed=options.seed,
        path=options.questions,
        subset=options.subset,
    )
    bind(run)
    return run


def _run_id(run: Run) -> str:
    return f"{run.run_dir.resolve()}"


def mark(run: Run, store: GraphStore, config: str | None) -> None:
    store.run("eval/mark_store", {"id": META_ID, "run": _run_id(run), "config": config}, write=True)


def _fingerprint(store: GraphStore) -> dict[str, int]:
    return {**store.counts(), "relationships": store.relationship_count()}


def build_shared(
    run: Run, store: GraphStore, embedder: Embedder, progress: Progress | None
) -> dict[str, int]:
    """Build the corpus into the shared store (refusing one that holds anything else) and
    return the base build's counts."""
    store.ensure_schema(embedder.spec)
    meta = store.meta() or {}
    owner = meta.get("eval_run")
    if owner != _run_id(run):
        if owner is not None:
            raise ConfigError(
                f"store {store.location} holds the evaluation run {owner}; evaluate on an "
                "empty database (or resume that run)"
            )
        held = {k: n for k, n in store.counts().items() if n and k != "GraphMindMeta"}
        if held:
            what = ", ".join(f"{n} {label}" for label, n in held.items())
            raise ConfigError(
                f"store {store.location} is not empty ({what}): "
                "an evaluation deletes its reasoning graph between configurations, so it "
                "needs an empty database of its own"
            )
        mark(run, store, None)
    path = run.run_dir / "stores" / BASE_FILE
    if path.is_file():
        return dict(json.loads(path.read_text(encoding="utf-8")))
    _build_into(run, store, embedder, progress)
    base = _fingerprint(store)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(base, indent=2) + "\n", encoding="utf-8")
    return base


def reset_shared(
    run: Run,
    store: GraphStore,
    embedder: Embedder,
    base: dict[str, int],
    progress: Progress | None,
) -> None:
    """Put the shared store back to the base build (bounded deletions): every label the
    base build has no node of goes (the reasoning graph, its statistics, and on a
    chunk-only corpus what asking extracted), and on a chunk-only corpus the extraction
    marks; else build it again."""
    for label in (name for name in NODE_LABELS if not base.get(name)):
        store.drain("store/delete_label_relationships", DELETE_BATCH, label=label)
        store.drain("store/delete_label_batch", DELETE_BATCH, label=label)
    if run.options.extract == "none":
        store.drain("eval/reset_extraction", DELETE_BATCH)
    if _fingerprint(store) == base:
        return
    run.say("the corpus differs from the base build: building it again")
    store.wipe()
    store.ensure_schema(embedder.spec)
    _build_into(run, store, embedder, progress)
    mark(run, store, None)
    if _fingerprint(store) != base:
        raise ConfigError(f"store {store.location} no longer matches the run's base build")


def bind(run: Run) -> None:
    """Record what the run directory is for, or refuse a different evaluation in it."""
    run.run_dir.mkdir(parents=True, exist_ok=True)
    path = run.run_dir / RUN_FILE
    identity = run.options.identity()
    if path.is_file():
        stored = json.loads(path.read_text(encoding="utf-8"))
        if stored != identity:
            changed = sorted(k for k in stored | identity if stored.get(k) != identity.get(k))
            differences = ", ".join(
                f"{k} differs: {_shown(stored.get(k))} there, {_shown(identity.get(k))} asked"
                for k in changed
            )
            raise BadInputError(
                f"{run.run_dir} holds another evaluation ({differences}); "
                "give the same options to go on, or use another --run-dir"
            )
        return
    write_identity(run.run_dir, identity)


def write_identity(run_dir: Path, identity: dict[str, Any]) -> None:
    """Write ``run.json``: what the run directory is for (``bind`` compares it)."""
    (run_dir / RUN_FILE).write_text(json.dumps(identity, indent=2) + "\n", encoding="utf-8")


def _shown(value: Any) -> str:
    """A bound value in a message; an option at its default is not bound (None)."""
    return "the default" if value is None else repr(value)


def store_settings(run: Run, name: str) -> Settings:
    path = run.run_dir / "stores" / f"{name}.db"
    return run.settings.model_copy(update={"store": f"falkordb-lite://{path}"})


def build_stores(run: Run, embedder: Embedder, progress: Progress | None) -> None:
    """Build the corpus once into the base store, then copy it for each configuration."""
    stores = run.run_dir / "stores"
    stores.mkdir(exist_ok=True)
    if not (stores / BUILT_MARK).is_file():
        with open_store(store_settings(run, "base")) as store:
            store.ensure_schema(embedder.spec)
            _build_into(run, store, embedder, progress)
        (stores / BUILT_MARK).write_text("ok\n", encoding="utf-8")
    for config in run.options.configs:
        target = stores / f"{config}.db"
        if not target.exists():
            shutil.copyfile(stores / "base.db", target)


def _build_into(run: Run, store: GraphStore, embedder: Embedder, progress: Progress | None) -> None:
    """Build the dataset's corpus into ``store`` through every build stage, communities
    included (resumable; LLM answers cached in the run). Only the run's ``extract`` and
    ``chunk_size`` differ from the build defaults, so the run identity pins the corpus,
    and communities are named by their members, as a fast build names them: no deep
    question reads a summary, and an LLM build's cost is then its extraction (the 0.5B
    would spend about 10 s on each of some hundreds of communities)."""
    from graphmind.ingest.build import run_build

    corpus = write_corpus(run.dataset, run.run_dir / "corpus.json")
    run.say(f"building {len(run.dataset.corpus)} passages into {store.location}")
    started = time.perf_counter()
    options = BuildOptions(extract=run.options.extract, chunk_size=run.options.chunk_size)
    llm = None
    if options.extract == "llm":
        from graphmind.factories import make_llm

        llm = make_llm(run.settings, cache_dir=run.run_dir)
    communities = CommunityOptions(summarize=False)
    report = run_build(store, embedder, llm, [str(corpus)], options, communities, progress)
    if report.interrupted:
        raise InterruptedBuildError(
            "the build was interrupted; run the same command again to resume"
        )
    run.say(f"built in {time.perf_counter() - started:.0f}s: {report.chunks_written} chunks")
