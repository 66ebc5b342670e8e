"""What the server does, as plain methods over one store held open for its lifetime.

The server owns (or, when another process has it, attaches to) the configured store
once, loads the embedder and the LLM once, and every request uses them: an embedded
FalkorDB Lite store is not started and stopped per request, and the command line can
still read it beside the server (``shared``). Inputs are bounded as in the MCP server
(``graphmind.mcp_server``): text lengths, ``k``, an audit's rows, parameters and run time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from graphmind.ask.loop import AskLoop, AskOptions
from graphmind.ask.options import Scope
from graphmind.config import Settings
from graphmind.core.decision import Decision, Round
from graphmind.core.errors import BadInputError, ConfigError, EmptyStoreError, NotFoundError
from graphmind.core.progress import Progress
from graphmind.embed import Embedder
from graphmind.factories import (
    build_extract,
    choose_llm,
    make_embedder,
    make_llm,
    open_store,
)
from graphmind.ingest.documents import DeleteReport, DocumentInfo
from graphmind.ingest.options import BuildOptions, BuildReport
from graphmind.llm import LLM, Ledger
from graphmind.mcp_server import (
    AUDIT_ROWS,
    MAX_AUDIT_ROWS,
    MAX_ID,
    MAX_K,
    audit_params,
    audit_queries,
    capped,
)
from graphmind.memory.feedback import FeedbackResult
from graphmind.serve.gate import AskGate
from graphmind.store.base import GraphStore

MAX_ROUNDS = 10
DECISIONS_LISTED = 50  # past decisions listed unless asked otherwise
MAX_LISTED = 1000
Memory = Literal["off", "profiles", "full"]
AskMode = Literal["loop", "naive", "judged"]


@dataclass
class AskKnobs:
    """The loop's options a request may set; None takes the ``[ask]`` settings."""

    mode: AskMode | None = None
    max_rounds: int | None = None
    k: int | None = None
    memory: Memory | None = None
    evolve_graph: bool | None = None
    explain: bool | None = None  # the full answer (False: the short answer only)
    scope: Scope | None = None  # deep, broad (from the communities) or auto


class Service:
    """The store, embedder, LLM and ask queue behind every endpoint."""

    def __init__(
        self, settings: Settings, *, llm: LLM | None = None, embedder: Embedder | None = None
    ) -> None:
        self.settings = settings
        self._llm = llm
        self._embedder = embedder
        self._store: GraphStore | None = None
        self._opening = threading.Lock()
        self._building = threading.Lock()
        self.gate = AskGate(llm.concurrency if llm is not None else _slots(settings))

    # -- what every request shares ---------------------------------------------------
    def store(self) -> GraphStore:
        """The store, opened on first use and kept open."""
        with self._opening:
            if self._store is None:
                self._store = open_store(self.settings, shared=True)
                self._store.serialize_writes()  # many request threads, one writer
            return self._store

    def embedder(self) -> Embedder:
        """The configured embedder, loaded on first use."""
        with self._opening:
            if self._embedder is None:
                self._embedder = make_embedder(self.settings)
            return self._embedder

    def llm(self) -> LLM:
        """An LLM for one ask or build: the shared model and cache with a ledger of its
        own, so concurrent asks count only their own tokens."""
        with self._opening:
            if self._llm is None:
                self._llm = make_llm(self.settings, cache_dir=self.settings.state_dir())
            base = self._llm
        if base is None:
            raise ConfigError(
                "no LLM is configured: run scripts/fetch_model.py for the offline model, or set "
                "GRAPHMIND_LLM_BASE_URL and GRAPHMIND_LLM_MODEL"
            )
        return LLM(
            base.provider,
            cache=base.cache,
            ledger=Ledger(),
            max_retries=base.max_retries,
            max_tokens=base.max_tokens,
            temperature=base.temperature,
            concurrency=base.concurrency,
        )

    def model_name(self) -> str:
        """The model that answers, for ``/v1/models`` (no model is loaded for it)."""
        if self._llm is not None:
            return self._llm.model_id
        try:
            choice = choose_llm(self.settings)
        except ConfigError:
            return "none"
        if choice.model:
            return choice.model
        return choice.gguf_path.stem if choice.gguf_path else "none"

    def close(self) -> None:
        """Close the store (the server is stopping)."""
        with self._opening:
            if self._store is not None:
                self._store.close()
                self._store = None

    # -- asking ------------------------------------------------------------------------
    def options(self, knobs: AskKnobs) -> AskOptions:
        """The ``[ask]`` settings with what the request set, checked."""
        base = self.settings.ask
        given = {k: v for k, v in knobs.__dict__.items() if v is not None and k != "memory"}
        options = replace(base, **given)
        if knobs.memory is not None:
            options = replace(options, memory=replace(base.memory, mode=knobs.memory))
        if not 1 <= options.max_rounds <= MAX_ROUNDS:
            raise BadInputError(f"max_rounds must be 1 to {MAX_ROUNDS}, got {options.max_rounds}")
        if not 1 <= options.k <= MAX_K:
            raise BadInputError(f"k must be 1 to {MAX_K}, got {options.k}")
        return options

    def ask(
        self,
        question: str,
        knobs: AskKnobs | None = None,
        on_round: Callable[[Round], None] | None = None,
        on_wait: Callable[[int], None] | None = None,
        on_start: Callable[[], None] | None = None,
    ) -> tuple[Decision, int]:
        """Answer ``question`` (recorded in the graph) once a slot of the model is free
        (``on_wait(place)`` while it waits, ``on_start()`` when it gets one); returns the
        decision and the place in line it first had (0: it ran at once)."""
        text = capped(question, "the question").strip()
        if not text:
            raise BadInputError("the question is empty")
        options = self.options(knobs or AskKnobs())
        llm = self.llm()
        embedder = self.embedder()
        store = self.store()
        if store.counts()["Chunk"] == 0:
            raise EmptyStoreError(f"the store {store.location} has no documents: build some")
        with self.gate.turn(on_wait) as place:
            if on_start is not None:
                on_start()
            decision = AskLoop(store, embedder, llm, options, on_round).ask(text)
        return decision, place

    # -- reading -----------------------------------------------------------------------
    def trace(self, decision_id: str) -> Decision:
        """A past decision read back from the graph."""
        from graphmind.memory.decisions import read_decision

        found = read_decision(self.store(), _ident(decision_id, "decision"))
        if found is None:
            raise NotFoundError(f"no decision {decision_id!r} in the store")
        return found

    def decisions(self, limit: int = DECISIONS_LISTED) -> list[dict[str, Any]]:
        """The most recent decisions, newest first."""
        from graphmind.memory.decisions import list_decisions

        return list_decisions(self.store(), _limit(limit))

    def documents(self, match: str | None = None, limit: int = MAX_LISTED) -> list[DocumentInfo]:
        """The documents in the store; ``match`` filters on title or source."""
        from graphmind.ingest.documents import list_documents

        if match is not None:
            capped(match, "the match")
        return list_documents(self.store(), match=match, limit=_limit(limit))

    def graph_html(self, decision_id: str) -> str:
        """The decision's evidence graph, the page ``graphmind show`` writes."""
        from graphmind.show import decision_view, render_html

        return render_html(decision_view(self.store(), _ident(decision_id, "decision")))

    def audit(
        self, name: str, params: dict[str, Any] | None = None, limit: int = AUDIT_ROWS
    ) -> dict[str, Any]:
        """The first ``limit`` rows of a bundled read-only audit query, run within the
        query timeout; only the parameters the query uses are accepted."""
        key = capped(name, "the audit query's name", MAX_ID).strip().removeprefix("audit/")
        known = audit_queries()
        if key not in known:
            raise NotFoundError(f"no audit query {name!r}; there are: {', '.join(known)}")
        if not 1 <= limit <= MAX_AUDIT_ROWS:
            raise BadInputError(f"limit must be 1 to {MAX_AUDIT_ROWS}, got {limit}")
        given = audit_params(key, params)
        result = self.store().read_capped(
            f"audit/{key}", given, limit, timeout=self.settings.query_timeout
        )
        return {"query": f"audit/{key}", "rows": result.records(), "more": result.more}

    def doctor(self) -> dict[str, Any]:
        """The store, its indexes and counts, the embedder, the LLM and the ask queue."""
        from graphmind.doctor import run_doctor

        self.store()  # an embedded store is then this server's: the report reaches it
        report: dict[str, Any] = run_doctor(self.settings, create=False).as_dict()
        report["queue"] = {
            "slots": self.gate.slots,
            "running": self.gate.running,
            "waiting": self.gate.waiting,
        }
        return report

    # -- writing -----------------------------------------------------------------------
    def feedback(
        self, decision_id: str, correct: bool | None = None, gold: str | None = None
    ) -> FeedbackResult:
        """Mark a decision correct or incorrect, or score it against a gold answer."""
        from graphmind.memory.feedback import record_feedback

        if (correct is None) == (gold is None):
            raise BadInputError(
                "give exactly one of `correct` (true/false) or `gold` (the right answer)"
            )
        if gold is not None:
            capped(gold, "the gold answer")
        ident = _ident(decision_id, "decision")
        return record_feedback(self.store(), ident, correct=correct, gold=gold)

    def delete(self, document_id: str) -> DeleteReport:
        """Delete one document (by id) as ``graphmind documents delete`` does."""
        from graphmind.ingest.documents import delete_documents, find_documents

        ident = _ident(document_id, "document")
        store = self.store()
        with self._building:
            if not any(d.id == ident for d in find_documents(store, ident)):
                raise NotFoundError(f"no document with id {ident!r} in the store")
            return delete_documents(store, [ident])

    def uploads(self) -> Path:
        """Where uploaded files are kept (beside an embedded store): their path is the
        documents' source, so uploading a file again updates its documents."""
        return self.settings.state_dir() / "uploads"

    def build(
        self,
        files: Sequence[tuple[str, bytes]],
        options: BuildOptions,
        progress: Progress | None = None,
    ) -> BuildReport:
        """Save uploaded files (name, contents) and build them into the store, one build
        at a time; an LLM build takes a slot of the model like an ask."""
        from graphmind.ingest.build import run_build

        options.check()
        options = replace(options, extract=build_extract(self.settings, options.extract))
        community = self.settings.communities
        community.check()
        if not files:
            raise BadInputError("no file was uploaded: send one or more as `files`")
        targets = [(self.uploads() / _file_name(name), data) for name, data in files]
        embedder = self.embedder()
        store = self.store()
        names = [str(path) for path, _ in targets]
        with self._building:
            for path, data in targets:
                try:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(data)
                except OSError as exc:
                    raise BadInputError(f"cannot save the upload {path.name}: {exc}") from exc
            if options.extract != "llm":
                return run_build(store, embedder, None, names, options, community, progress)
            llm = self.llm()
            with self.gate.turn():
                return run_build(store, embedder, llm, names, options, community, progress)


def _slots(settings: Settings) -> int:
    """How many asks the configured model takes at once: one for a local model."""
    try:
        local = choose_llm(settings).kind == "llama-cpp"
    except ConfigError:
        local = False
    return 1 if local else settings.llm_concurrency


def _ident(value: str, what: str) -> str:
    text = capped(value, f"the {what} id", MAX_ID).strip()
    if not text:
        raise BadInputError(f"give a {what} id")
    return text


def _file_name(name: str) -> str:
    """An uploaded file's name, safe to save: no folders, no odd characters."""
    base = Path(name.replace("\\", "/")).name
    safe = "".join(ch if ch.isalnum() or ch in "._- " else "_" for ch in base).strip(" .")
    if not safe:
        raise BadInputError(f"the upload's file name {name!r} is not usable")
    return safe[:120]


def _limit(limit: int) -> int:
    if not 1 <= limit <= MAX_LISTED:
        raise BadInputError(f"limit must be 1 to {MAX_LISTED}, got {limit}")
    return limit
