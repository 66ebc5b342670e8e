"""What a build is asked to do (``BuildOptions``) and what it did (``BuildReport``): the
light half of the build pipeline, which the CLI, the settings, the API and the server
import without loading it."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from graphmind.core.errors import BadInputError
from graphmind.extract.fast import DEFAULT_MODEL
from graphmind.ingest.loaders import LoadFailure, LoadOptions

if TYPE_CHECKING:
    from graphmind.llm import LLM

ExtractMode = Literal["llm", "fast", "none"]
ExtractChoice = Literal["auto", "llm", "fast", "none"]
ResolveMode = Literal["link", "merge", "off"]
FactVectors = Literal["sentence", "text"]
Layer = Literal["episodic"]
DEFAULT_CHUNK_SIZE = 512


@dataclass
class BuildOptions:
    """What to read and how to build. ``chunk_size`` None: 512 tokens, or what the
    embedder reads when that is less (so no chunk is cut short when embedded).
    ``extract``: ``llm`` (an LLM call per chunk), ``fast`` (spaCy, no LLM: the pipeline
    package ``fast_model``), ``none`` (chunk-only) or ``auto`` (``auto_extract``);
    ``fact_vectors``: a weak fact of ``fast`` (two names in a sentence, no verb between)
    is read from its chunk's pass over its sentence and joined with its two names'
    vectors (``sentence``) or embedded as its own text (``text``; see
    ``graphmind.ingest.embedding``);
    ``communities``: recompute communities and PageRank when entities changed;
    ``layers``: optional layers (``episodic``: sliding-window narrative summaries)."""

    load: LoadOptions = field(default_factory=LoadOptions)
    chunk_size: int | None = None
    chunk_overlap: int = 64
    extract: ExtractChoice = "auto"
    fast_model: str = DEFAULT_MODEL
    resolve: ResolveMode = "link"
    batch_docs: int = 64
    limit: int | None = None
    same_as_similarity: float = 0.92
    same_as_name_ratio: float = 0.85
    fact_vectors: FactVectors = "sentence"
    communities: bool = True
    layers: tuple[Layer, ...] = ()

    def check(self) -> None:
        """BadInputError for values that would do something else than asked."""
        if self.limit is not None and self.limit < 1:
            raise BadInputError(f"limit must be at least 1 (got {self.limit})")
        if self.batch_docs < 1:
            raise BadInputError(f"batch_docs must be at least 1 (got {self.batch_docs})")
        if self.chunk_size is not None and self.chunk_size < 8:
            raise BadInputError(f"chunk size must be at least 8 tokens (got {self.chunk_size})")
        if self.chunk_overlap < 0 or (
            self.chunk_size is not None and self.chunk_overlap >= self.chunk_size
        ):
            raise BadInputError("chunk overlap must be between 0 and the chunk size")


def auto_extract(llm_in_process: bool | None) -> ExtractMode:
    """What ``extract="auto"`` builds: ``llm`` when the LLM is an endpoint; ``fast`` when
    it runs in-process (the offline models: about 80x spaCy's time a chunk on a CPU, for
    a thinner graph) or when there is none (``llm_in_process`` None)."""
    return "llm" if llm_in_process is False else "fast"


def settle_extract(options: BuildOptions, llm: LLM | None) -> tuple[BuildOptions, LLM | None]:
    """``options`` with ``extract="auto"`` made concrete for ``llm`` (``auto_extract``),
    and the LLM the build uses: none when that is ``fast``, as ``--extract fast`` builds
    (community summaries are then written when a broad question reaches them)."""
    if options.extract != "auto":
        return options, llm
    mode = auto_extract(None if llm is None else llm.provider.in_process)
    return replace(options, extract=mode), llm if mode == "llm" else None


@dataclass
class BuildReport:
    """What a build did; ``as_dict`` is the ``--json`` summary.

    ``extraction``: what the documents written were extracted by (``none``,
    ``fast:PACKAGE-VERSION`` or ``llm:MODEL``); ``documents_new`` and
    ``documents_changed`` count documents this build wrote;
    ``documents_elsewhere`` those another build wrote first (same content);
    ``load_failures`` every file or entry not built, with the reason (not read, not
    parsed, without text, or refused by the store); ``documents_not_reached`` what an
    interruption left for the next run.
    """

    extraction: str = ""
    documents_new: int = 0
    documents_changed: int = 0
    documents_skipped: int = 0
    documents_elsewhere: int = 0
    documents_planned: int = 0
    documents_not_reached: int = 0
    load_failures: list[LoadFailure] = field(default_factory=list)
    notes: list[LoadFailure] = field(default_factory=list)
    empty_paths: list[str] = field(default_factory=list)
    chunk_size: int = DEFAULT_CHUNK_SIZE
    chunks_written: int = 0
    chunks_failed: int = 0
    chunks_empty: int = 0
    entities_in_batches: int = 0
    triplets_in_batches: int = 0
    same_as_links: int = 0
    entities_merged: int = 0
    orphans_deleted: int = 0
    embedded_texts: int = 0
    sentence_vectors: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    cpu_seconds: dict[str, float] = field(default_factory=dict)
    llm: dict[str, Any] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    relationships: int = 0
    interrupted: bool = False
    warnings: list[str] = field(default_factory=list)
    communities: dict[str, Any] = field(default_factory=dict)
    episodes: dict[str, Any] = field(default_factory=dict)

    @property
    def documents_written(self) -> int:
        """Documents this build wrote (new or changed)."""
        return self.documents_new + self.documents_changed

    @property
    def nothing_built(self) -> bool:
        """True when the build found nothing to build and nothing already built: every
        path was empty or every document failed."""
        return (
            not self.interrupted
            and self.documents_written == 0
            and self.documents_skipped == 0
            and self.documents_elsewhere == 0
        )

    def nothing_built_reason(self) -> str:
        """Why nothing was built, in one line."""
        reasons = list(self.empty_paths)
        if self.load_failures:
            reasons.append(f"{len(self.load_failures)} file(s) or entries not read")
        return "nothing was built: " + ("; ".join(reasons) or "no documents")

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        data = {k: v for k, v in self.__dict__.items() if k not in ("load_failures", "notes")}
        data["load_failures"] = [f.__dict__ for f in self.load_failures]
        data["notes"] = [f.__dict__ for f in self.notes]
        data["documents_written"] = self.documents_written
        data["nothing_built"] = self.nothing_built
        return data
