"""``graphmind mcp``: GraphMind as a Model Context Protocol server over stdio.

Built with the official ``mcp`` SDK. Tools: ``ask`` (the evidence loop, recorded as a
decision), ``search`` (retrieval only, no LLM), ``trace`` (a past decision), ``feedback``,
``audit`` (the bundled read-only audit queries, by name) and ``doctor``. Each call opens
the configured store and closes it again, so the command line can use an embedded store
between calls; the read-only tools open it shared (reaching a running build's server)
and never create a store or its schema. Every input is bounded: text lengths, ``k``,
an audit's ``limit``, its parameters (only those its query uses) and its run time. A
GraphMind error (bad input, unknown id, unreachable store) comes back as a tool error
with its message; anything unexpected is reported the same way by the SDK, never a
crash of the server.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

from graphmind import __version__
from graphmind.config import Settings, load_settings
from graphmind.core.decision import both_answers
from graphmind.core.errors import (
    BadInputError,
    ConfigError,
    EmptyStoreError,
    GraphMindError,
    NotFoundError,
)
from graphmind.store.registry import default_root, parameters

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from graphmind.embed import Embedder

INSTRUCTIONS = """\
GraphMind answers questions from a document graph and records every answer's reasoning
(a decision) in the graph. Use `search` to find passages quickly without a language model,
`ask` for a cited answer (slower: it runs the evidence loop with the configured LLM), `trace`
to see why a past answer was given, `feedback` to mark an answer right or wrong (only
correct answers teach the memory), `audit` for the bundled audit queries and `doctor` when
something fails."""

_AUDIT_NAME = re.compile(r"^[a-z_]+$")
MAX_K = 50
AUDIT_ROWS = 100  # rows an audit call returns unless its `limit` says otherwise
MAX_AUDIT_ROWS = 1000  # the most an audit call's `limit` may ask for
MAX_TEXT = 4000  # characters of a question, query, gold answer or audit parameter
MAX_ID = 200  # characters of a decision id or an audit query's name


def audit_queries() -> dict[str, str]:
    """The bundled audit queries: name (``decision_chain``...) -> its leading comment."""
    out: dict[str, str] = {}
    for path in sorted((default_root() / "audit").glob("*.cypher")):
        lines = path.read_text(encoding="utf-8").splitlines()
        comment = []
        for line in lines:
            if not line.startswith("//"):
                break
            text = line.removeprefix("//").strip()
            if text.startswith(("graphmind cypher", "Neo4j Browser")):
                continue
            comment.append(text)
        out[path.stem] = " ".join(comment)
    return out


def audit_parameters(name: str) -> set[str]:
    """The ``$parameters`` the bundled audit query ``name`` uses."""
    return parameters((default_root() / "audit" / f"{name}.cypher").read_text(encoding="utf-8"))


def capped(text: str, what: str, most: int = MAX_TEXT) -> str:
    """``text`` when it holds at most ``most`` characters; BadInputError otherwise."""
    if len(text) > most:
        raise BadInputError(f"{what} is {len(text)} characters long; the most is {most}")
    return text


def audit_params(name: str, params: dict[str, Any] | None) -> dict[str, Any]:
    """An audit call's parameters: only those its query uses, each a short plain value."""
    given = dict(params or {})
    wanted = audit_parameters(name)
    unknown = [key for key in given if key not in wanted]
    if unknown:
        takes = ", ".join(f"${p}" for p in sorted(wanted)) or "no parameters"
        shown = repr(unknown[0]) if len(repr(unknown[0])) <= 40 else repr(unknown[0])[:37] + "..."
        raise BadInputError(f"audit query {name!r} takes {takes}, not {shown}")
    for key, value in given.items():
        if isinstance(value, str):
            capped(value, f"parameter {key!r}")
        elif not isinstance(value, int | float | bool):
            raise BadInputError(f"parameter {key!r} must be text, a number or true/false")
    return given


def _audit_description() -> str:
    items = "\n".join(f"- {name}: {text}" for name, text in audit_queries().items())
    return (
        "Run one of GraphMind's bundled read-only audit queries by name and return its rows "
        'as JSON objects. Parameters go in `params` (e.g. {"id": "<decision id>"} for '
        'decision_chain, {"chunk": "<chunk id>"} for evidence_history, {"document": '
        '"<id, source path or title>"} for decisions_citing_document). At most `limit` rows '
        f"come back (default {AUDIT_ROWS}, at most {MAX_AUDIT_ROWS}); `more` is true when "
        "the query had more. "
        "The queries:\n" + items
    )


class GraphMindTools:
    """The tools' implementations: plain functions over the configured store, so they
    can be tested without a transport. The embedder is loaded once and kept."""

    def __init__(self, settings: Callable[[], Settings] = load_settings) -> None:
        self._settings = settings
        self._embedder: Embedder | None = None
        self._lock = threading.Lock()

    def settings(self) -> Settings:
        """The settings as configured now (environment, graphmind.toml)."""
        return self._settings()

    def embedder(self, settings: Settings) -> Embedder:
        """The configured embedder, loaded on first use."""
        from graphmind.factories import make_embedder

        with self._lock:
            if self._embedder is None or self._embedder.spec != settings.embedder_spec():
                self._embedder = make_embedder(settings)
            return self._embedder

    def search(self, query: str, k: int = 10) -> dict[str, Any]:
        """Retrieval only: the fused ranking of passages for ``query``, with their sources."""
        from graphmind.ask.retrieve import RetrieveOptions, candidates, fuse, rank_lists
        from graphmind.factories import open_store

        text = capped(query, "the query").strip()
        if not text:
            raise BadInputError("the query is empty")
        if not 1 <= k <= MAX_K:
            raise BadInputError(f"k must be between 1 and {MAX_K}, got {k}")
        config = self.settings()
        embedder = self.embedder(config)
        vector = embedder.embed([text])[0]
        with open_store(config, create=False) as store:
            if store.counts()["Chunk"] == 0:
                raise EmptyStoreError(
                    f"the store {store.location} has no documents: run graphmind build"
                )
            options = RetrieveOptions(per_list=max(k, 20))
            found = candidates(store, fuse([rank_lists(store, text, vector, options)], k), 0)
            sources = {
                str(r["id"]): r for r in store.run("show/chunks", {"ids": [c.id for c in found]})
            }
        passages = []
        for rank, c in enumerate(found, start=1):
            doc = sources.get(c.id, {})
            passages.append(
                {
                    "rank": rank,
                    "chunk_id": c.id,
                    "title": c.title,
                    "text": c.text,
                    "score": round(c.score, 6),
                    "found_by": c.sources,
                    "document_id": doc.get("document"),
                    "source": doc.get("source"),
                }
            )
        return {"query": text, "passages": passages}

    def ask(
        self,
        question: str,
        max_rounds: int | None = None,
        k: int | None = None,
        memory: Literal["off", "profiles", "full"] | None = None,
        short: bool = False,
        scope: Literal["auto", "deep", "broad"] | None = None,
    ) -> dict[str, Any]:
        """Answer with the evidence loop (or, for a broad question, from the communities);
        the decision is recorded in the graph. A knob left out takes the ``[ask]`` settings
        (the loop's defaults unless configured); ``short``: the short answer only, without
        the full answer's call."""
        from graphmind import api

        config = self.settings()
        base = config.ask
        options = replace(
            base,
            max_rounds=base.max_rounds if max_rounds is None else max_rounds,
            k=base.k if k is None else k,
            memory=base.memory if memory is None else replace(base.memory, mode=memory),
            explain=base.explain and not short,
            scope=base.scope if scope is None else scope,
        )
        if not 1 <= options.max_rounds <= 10 or not 1 <= options.k <= MAX_K:
            raise BadInputError(f"max_rounds must be 1-10 and k 1-{MAX_K}")
        d = api.ask(capped(question, "the question"), options, config)
        return {
            "decision_id": d.id,
            **both_answers(d),
            "abstained": d.abstained,
            "sufficiency": d.sufficiency.value,
            "confidence": d.confidence,
            "rounds": len(d.rounds),
            "model": d.model,
        }

    def trace(self, decision_id: str) -> dict[str, Any]:
        """A past decision read back from the graph."""
        from graphmind import api
        from graphmind.memory.render import decision_as_dict

        if not capped(decision_id, "the decision id", MAX_ID).strip():
            raise BadInputError("give a decision id")
        return decision_as_dict(api.trace(decision_id.strip(), self.settings(), create=False))

    def feedback(
        self, decision_id: str, correct: bool | None = None, gold: str | None = None
    ) -> dict[str, Any]:
        """Mark a decision correct or incorrect, or score it against a gold answer."""
        from graphmind import api

        if (correct is None) == (gold is None):
            raise BadInputError(
                "give exactly one of `correct` (true/false) or `gold` (the right answer)"
            )
        capped(decision_id, "the decision id", MAX_ID)
        if gold is not None:
            capped(gold, "the gold answer")
        result = api.feedback(decision_id, correct=correct, gold=gold, settings=self.settings())
        return dict(result.__dict__)

    def audit(
        self, name: str, params: dict[str, Any] | None = None, limit: int = AUDIT_ROWS
    ) -> dict[str, Any]:
        """The first ``limit`` rows of a bundled audit query, run read-only within the
        query timeout; ``more`` says whether it had more. Only the parameters the query
        uses are accepted."""
        from graphmind.factories import open_store

        key = capped(name, "the audit query's name", MAX_ID).strip().removeprefix("audit/")
        known = audit_queries()
        if not _AUDIT_NAME.match(key) or key not in known:
            raise NotFoundError(f"no audit query {name!r}; there are: {', '.join(known)}")
        if not 1 <= limit <= MAX_AUDIT_ROWS:
            raise BadInputError(f"limit must be 1 to {MAX_AUDIT_ROWS}, got {limit}")
        given = audit_params(key, params)
        config = self.settings()
        with open_store(config, create=False) as store:
            result = store.read_capped(f"audit/{key}", given, limit, timeout=config.query_timeout)
        return {"query": f"audit/{key}", "rows": result.records(), "more": result.more}

    def doctor(self) -> dict[str, Any]:
        """The store, its indexes and counts, the embedder and the LLM."""
        from graphmind.doctor import run_doctor

        report: dict[str, Any] = run_doctor(self.settings(), create=False).as_dict()
        return report


def build_server(tools: GraphMindTools | None = None) -> MCPServer:
    """The MCP server with GraphMind's tools registered."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import ToolAnnotations

    impl = tools or GraphMindTools()
    server: MCPServer = MCPServer(
        name="graphmind", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    writes = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)

    def call(fn: Callable[..., dict[str, Any]], *args: Any, **kwargs: Any) -> dict[str, Any]:
        try:
            return fn(*args, **kwargs)
        except GraphMindError as exc:
            raise ToolError(str(exc)) from exc

    @server.tool(
        name="search",
        description=(
            "Find passages in the GraphMind corpus for a query, without any language model: "
            "hybrid retrieval (chunk, triplet, community and episode vectors, BM25 full text, "
            "personalized PageRank over the entities the query names) fused by reciprocal rank. "
            "Returns up to k passages best first, each with its chunk id, document title, "
            "source path, text, score and the retrievers that found it. Fast; use it to look "
            "things up, and `ask` when you need a cited, graded answer."
        ),
        annotations=read_only,
    )
    def search(query: str, k: int = 10) -> dict[str, Any]:
        return call(impl.search, query, k)

    @server.tool(
        name="ask",
        description=(
            "Answer a question from the corpus with GraphMind's evidence loop: retrieve, let "
            "the configured LLM judge each passage, search again for what is missing, then "
            "answer with citations, or abstain ('Not found in the corpus.'). Slow (LLM calls). "
            "Returns the short answer, the full answer (sentences with the numbers of the "
            "passages each rests on), its grade (EXACT, INFERRABLE, PARTIAL, NONE), confidence, "
            "the cited passages and a decision id; the reasoning is recorded in the graph (see "
            "`trace`, `feedback`). memory: 'full' (default) uses what earlier correct answers "
            "learned, 'profiles' only evidence profiles, 'off' neither. short: true skips the "
            "full answer (one model call fewer). scope: 'broad' for a question about the "
            "collection as a whole (its main themes, what it says across documents), answered "
            "from the graph's communities with the communities it read; 'deep' the evidence "
            "loop; left out, chosen from the question's form."
        ),
        annotations=writes,
    )
    def ask(
        question: str,
        max_rounds: int | None = None,
        k: int | None = None,
        memory: Literal["off", "profiles", "full"] | None = None,
        short: bool = False,
        scope: Literal["auto", "deep", "broad"] | None = None,
    ) -> dict[str, Any]:
        return call(impl.ask, question, max_rounds, k, memory, short, scope)

    @server.tool(
        name="trace",
        description=(
            "Read a past decision (from `ask`) back from the graph: the question, answer, grade, "
            "each round's queries, every retrieved passage with the judge's verdict and reason, "
            "the citations, the agent and how retrieval was configured. Use it to explain or "
            "audit an answer."
        ),
        annotations=read_only,
    )
    def trace(decision_id: str) -> dict[str, Any]:
        return call(impl.trace, decision_id)

    @server.tool(
        name="feedback",
        description=(
            "Tell GraphMind whether a decision's answer was right: give `correct` (true or "
            "false), or `gold` (the right answer; token F1 >= 0.8 with the given answer counts "
            "as correct). Only correct decisions feed the memory later questions use. "
            "Idempotent; a later call corrects an earlier one. Returns the outcome before and "
            "after."
        ),
        annotations=ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=False,
        ),
    )
    def feedback(
        decision_id: str, correct: bool | None = None, gold: str | None = None
    ) -> dict[str, Any]:
        return call(impl.feedback, decision_id, correct, gold)

    @server.tool(name="audit", description=_audit_description(), annotations=read_only)
    def audit(
        name: str, params: dict[str, Any] | None = None, limit: int = AUDIT_ROWS
    ) -> dict[str, Any]:
        return call(impl.audit, name, params, limit)

    @server.tool(
        name="doctor",
        description=(
            "Check GraphMind's setup: which store (FalkorDB Lite file or Neo4j server) and "
            "whether it opens, its schema, index states and node counts, the embedder and the "
            "LLM in use, and any problem found. Use it first when another tool fails."
        ),
        annotations=read_only,
    )
    def doctor() -> dict[str, Any]:
        return call(impl.doctor)

    return server


def serve(settings: Callable[[], Settings] = load_settings) -> None:
    """Run the server over stdio until the client closes it."""
    try:
        import mcp  # noqa: F401
    except ImportError as exc:
        raise ConfigError(
            f"graphmind mcp needs the mcp SDK: pip install graphmind ({exc})"
        ) from exc
    build_server(GraphMindTools(settings)).run("stdio")
