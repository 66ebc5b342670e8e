"""The decision model: candidates, verdicts, rounds, retrieval metadata and the decision.

One model for what the ask loop keeps, what the decision writer puts in the graph, what
``memory.decisions.read_decision`` validates back from it (``graphmind trace``, the MCP
server) and what the renderers and the evaluation read. A new field is added here, in the
writer's row and its ``.cypher`` file, and in the reader's dict.

The classes are pydantic dataclasses: built positionally like dataclasses, validated (and
validatable from plain data, see ``DECISION``). A few fields are the loop's working data and
are not stored, so a decision read back has them at their defaults; they say so below.
"""

from __future__ import annotations

from dataclasses import asdict, field
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, Field, TypeAdapter, field_validator
from pydantic.dataclasses import dataclass


class Sufficiency(StrEnum):
    """How well the accumulated evidence answers the question (EviMem's tiers)."""

    EXACT = "EXACT"
    INFERRABLE = "INFERRABLE"
    PARTIAL = "PARTIAL"
    NONE = "NONE"


@dataclass
class Candidate:
    """A chunk offered to the judge, with what led the retriever to it."""

    id: str
    text: str
    title: str
    score: float
    sources: list[str] = field(default_factory=list)  # e.g. "vector:chunk", "ppr", "expand"
    # the judge's context, not stored: the triplets, communities, times and profile shown
    triplets: list[str] = field(default_factory=list)
    communities: list[str] = field(default_factory=list)
    event_times: list[str] = field(default_factory=list)
    profile: str = ""  # its rendered evidence profile, when earlier correct decisions judged it


def verdict_word(value: Any) -> str:
    """A model's word for a verdict as "used" or "rejected" (other words pass through)."""
    text = str(value).strip().lower()
    return {
        "use": "used",
        "reject": "rejected",
        "relevant": "used",
        "irrelevant": "rejected",
    }.get(text, text)


class Verdict(BaseModel):
    """The judge's view of one candidate (``ref`` is the candidate's number, from 1)."""

    ref: int = Field(ge=1)
    verdict: Literal["used", "rejected"]
    reason: str = Field(default="", max_length=300)
    confidence_delta: float = Field(default=0.0, ge=-1.0, le=1.0)

    @field_validator("verdict", mode="before")
    @classmethod
    def _verdict(cls, value: Any) -> Any:
        return verdict_word(value)

    @field_validator("confidence_delta", mode="before")
    @classmethod
    def _clamp(cls, value: Any) -> Any:
        try:
            return max(-1.0, min(1.0, float(value)))
        except (TypeError, ValueError):
            return 0.0


class EntityCoverage(BaseModel):
    """Whether the evidence says what the question needs about one named entity."""

    entity: str
    covered: bool


class Judgement(BaseModel):
    """One round's structured judgement of the candidates."""

    verdicts: list[Verdict] = Field(default_factory=list)
    draft_answer: str = ""
    sufficiency: Sufficiency = Sufficiency.NONE
    confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    missing: str = ""
    coverage: list[EntityCoverage] = Field(default_factory=list)  # not stored
    probes: list[str] = Field(default_factory=list)
    cue: str = ""

    @field_validator("sufficiency", mode="before")
    @classmethod
    def _grade(cls, value: Any) -> Any:
        return str(value).strip().upper() if value is not None else "NONE"

    @field_validator("confidence", mode="before")
    @classmethod
    def _confidence(cls, value: Any) -> Any:
        try:
            return max(0.0, min(1.0, float(value)))
        except (TypeError, ValueError):
            return 0.0

    @field_validator("probes", mode="before")
    @classmethod
    def _probes(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [str(v).strip() for v in value if str(v).strip()][:3]
        return value


@dataclass
class Round:
    """What one round retrieved, judged and learned."""

    number: int
    queries: list[str]
    candidates: list[Candidate]
    judgement: Judgement
    expanded: list[str] = field(default_factory=list)  # chunk ids added by graph expansion
    extracted: int = 0  # triplets written by the evolving sub-graph
    store_ms: float = 0.0
    llm_ms: float = 0.0
    tokens: int = 0

    def verdict_of(self, candidate_id: str) -> Verdict | None:
        """The judge's verdict on a candidate of this round, if it gave one."""
        for v in self.judgement.verdicts:
            if 1 <= v.ref <= len(self.candidates) and self.candidates[v.ref - 1].id == candidate_id:
                return v
        return None


@dataclass
class Retrieval:
    """How the decision's evidence was retrieved and what memory did (RETRIEVED_VIA)."""

    memory: str = "off"  # off | profiles | full
    query_type: str = ""  # the QueryType id the question was assigned to
    query_type_new: bool = False  # the question opened a new type (not stored)
    query_vector: list[float] = field(default_factory=list, repr=False)  # not stored
    # the rest is stored on RETRIEVED_VIA, which is written when there is a query type
    config: str = "default"  # the retrieval configuration used
    explored: bool = False  # the planner tried a configuration to learn about it
    filters: str = ""  # the configuration spelled out, e.g. "k=20; ppr=on; layers=…"
    excluded: list[str] = field(default_factory=list)  # chunks the planner left out
    candidates_pre: int = 0  # distinct fused chunks before exclusion and the cut to k
    candidates_post: int = 0  # distinct chunks shown to the judge
    judged: int = 0  # candidates judged over all rounds
    profiled: int = 0  # of those, the ones shown with an evidence profile
    latency_ms: float = 0.0  # time spent retrieving (store and embedding)

    @property
    def coverage(self) -> float:
        """Share of judged candidates that carried an evidence profile."""
        return self.profiled / self.judged if self.judged else 0.0


@dataclass
class Citation:
    """A chunk the answer rests on (read back from the graph: empty title and text when
    the chunk is no longer stored)."""

    chunk_id: str
    title: str
    text: str


@dataclass
class Statement:
    """One sentence of the full answer and the chunks (ids) it rests on."""

    text: str
    chunks: list[str] = field(default_factory=list)


@dataclass
class CommunityVerdict:
    """A community a broad answer read (``graphmind.ask.broad``): "used" when the answer
    cites one of its points, else "rejected"; ``reason`` is its best point or why none."""

    id: str
    title: str
    verdict: Literal["used", "rejected"]
    reason: str = ""
    score: float = 0.0  # its best point's score (0 to 1)
    level: int = 0


@dataclass
class Agent:
    """The model and prompt that decided (the Agent node and its DECIDED edge)."""

    id: str
    model: str
    prompt_version: str


@dataclass
class Stored:
    """What the graph holds beside a decision read back from it: who decided, and its query
    type as it is now (its label and how many questions it holds)."""

    agent: Agent | None = None
    query_type_label: str = ""
    query_type_size: int = 0


@dataclass
class Decision:
    """The outcome of one question, as written to the graph."""

    id: str
    question: str
    answer: str
    abstained: bool
    sufficiency: Sufficiency
    confidence: float
    mode: str
    rounds: list[Round]
    citations: list[Citation]
    cues: list[str]
    temporal: bool
    tokens: int
    latency_ms: float
    store_ms: float
    llm_ms: float
    model: str
    created_at: int
    outcome: str = "pending"
    retrieval: Retrieval = field(default_factory=Retrieval)
    # the full answer: a few sentences, each resting on passages; ``sources`` are the
    # passages it cites beyond ``citations`` (the short answer's), numbered after them
    explanation: list[Statement] = field(default_factory=list)
    sources: list[Citation] = field(default_factory=list)
    # a broad answer's communities, each with its verdict (``EVALUATED`` edges to them)
    communities: list[CommunityVerdict] = field(default_factory=list)
    # set by the reader only; not part of the decision, so not compared
    stored: Stored | None = field(default=None, compare=False)


def numbered_sources(d: Decision) -> list[Citation]:
    """The passages a decision's markers number from 1: the short answer's citations,
    then those only the full answer cites."""
    return [*d.citations, *d.sources]


def numbered_statements(d: Decision) -> list[dict[str, Any]]:
    """The full answer's sentences, each with the numbers (in ``numbered_sources``) of
    the passages it rests on: ``{"text", "refs"}``."""
    number = {c.chunk_id: n for n, c in enumerate(numbered_sources(d), start=1)}
    return [
        {"text": s.text, "refs": [number[c] for c in s.chunks if c in number]}
        for s in d.explanation
    ]


def full_answer(d: Decision) -> str:
    """The full answer as text, each sentence followed by its markers ("... [1][3]"); the
    short answer when there is none."""
    if not d.explanation:
        return d.answer
    return " ".join(
        f"{s['text']} {''.join(f'[{n}]' for n in s['refs'])}".rstrip()
        for s in numbered_statements(d)
    )


def both_answers(d: Decision) -> dict[str, Any]:
    """The short and the full answer, JSON-ready (the MCP ``ask`` tool, ``POST /ask``):
    ``citations`` numbers the short answer's passages, then those only the full answer
    cites; ``short_citations`` says how many are the short answer's; ``scope`` and
    ``communities``: a broad answer's (deep: none)."""
    return {
        "answer": d.answer,
        "full_answer": full_answer(d),
        "explanation": numbered_statements(d),
        "citations": [
            {"ref": n, "chunk_id": c.chunk_id, "title": c.title, "text": c.text}
            for n, c in enumerate(numbered_sources(d), start=1)
        ],
        "short_citations": len(d.citations),
        "scope": "broad" if d.mode == "broad" else "deep",
        "communities": [asdict(c) for c in d.communities],
    }


DECISION: TypeAdapter[Decision] = TypeAdapter(Decision)
"""Validates a decision from plain data (what the reader assembles) and dumps one."""
