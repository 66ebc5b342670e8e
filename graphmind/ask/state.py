"""What one question's run holds between its steps, and what the steps work with."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from graphmind.ask.models import Answer
from graphmind.ask.rules.evidence import cited_passages
from graphmind.core.decision import Candidate, Round
from graphmind.core.recipes import DEFAULT_RECIPE, Recipe

if TYPE_CHECKING:
    from graphmind.ask.models import Check
    from graphmind.ask.options import AskOptions
    from graphmind.ask.retrieve import FirstList
    from graphmind.embed import Embedder
    from graphmind.llm import LLM
    from graphmind.memory.session import MemorySession
    from graphmind.store.base import GraphStore


@dataclass
class Conversation:
    """One answer call: the messages sent, the answer as the model wrote it (its citations
    numbering ``shown``) and the passages it was shown, in order."""

    messages: list[dict[str, str]]
    answer: Answer
    shown: list[Candidate]


@dataclass
class AskState:
    """One question's run so far: its rounds, what it asked, its timings and vectors."""

    question: str
    temporal: bool
    memory: MemorySession
    k: int
    recipe: Recipe = DEFAULT_RECIPE  # the retrievers that run: the planner's choice
    rounds: list[Round] = field(default_factory=list)
    cues: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    expanded: list[str] = field(default_factory=list)
    store_ms: float = 0.0
    llm_ms: float = 0.0
    pending_store_ms: float = 0.0  # time not yet booked on a round
    pending_llm_ms: float = 0.0
    tokens_mark: int = 0
    vectors: dict[str, list[float]] = field(default_factory=dict)  # query -> embedding
    # query -> the retrievers' lists: a later round asks the question again, and the
    # store has not changed (the evolving sub-graph's writes clear it)
    ranked: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    fused: set[str] = field(default_factory=set)  # every fused chunk, before exclusion
    retrieve_ms: float = 0.0
    checks: list[Check | None] = field(default_factory=list)  # per round
    asking: str = ""  # the question the next answer call asks: the question, or a next hop
    asked: list[str] = field(default_factory=list)  # per round, the question it asked
    first: str = ""  # the first hop's question, once asked (``first_hop``)
    shows_first: FirstList | None = None  # ``[ask] first`` for this question, when it differs
    # per round number, the answer call's conversation, its answer as the model wrote it
    # and the passages it numbered (what the full answer goes on from)
    conversations: dict[int, Conversation] = field(default_factory=dict)

    @property
    def hopping(self) -> bool:
        """Whether the next answer call asks a next hop's question (or the first hop's)."""
        return self.asking != self.question

    @property
    def bridging(self) -> bool:
        """Whether the next answer call asks a next hop's question about the last answer
        (a bridge), not the first hop's."""
        return self.hopping and self.asking != self.first

    def used(self) -> list[Candidate]:
        """Every candidate judged used, earliest round first, once."""
        seen: dict[str, Candidate] = {}
        for r in self.rounds:
            for c in cited_passages(r):
                seen.setdefault(c.id, c)
        return list(seen.values())

    def rejected(self) -> set[str]:
        """Every candidate judged rejected and never used."""
        return {
            r.candidates[v.ref - 1].id
            for r in self.rounds
            for v in r.judgement.verdicts
            if v.verdict == "rejected" and 1 <= v.ref <= len(r.candidates)
        } - {c.id for c in self.used()}

    def follow_up(self) -> list[str]:
        """The next round's query, not asked before: the last check's follow-up query, else
        the question's entities that the last round's citations do not mention."""
        asked = {q.lower() for q in self.queries}
        j = self.rounds[-1].judgement
        missed = " ".join(c.entity for c in j.coverage if not c.covered)
        options = [*j.probes, missed] if missed else j.probes
        return [p for p in options if p and p.lower() not in asked]

    @contextmanager
    def timed(self, kind: Literal["store", "llm"]) -> Iterator[None]:
        """Book the time the block takes on the store or the LLM, for the run and for the
        round it belongs to."""
        started = time.perf_counter()
        try:
            yield
        finally:
            ms = (time.perf_counter() - started) * 1000
            if kind == "llm":
                self.llm_ms += ms
                self.pending_llm_ms += ms
            else:
                self.store_ms += ms
                self.pending_store_ms += ms


@dataclass
class Tools:
    """What the steps work with: the store, the embedder, the LLM and the loop's options."""

    store: GraphStore
    embedder: Embedder
    llm: LLM
    options: AskOptions
