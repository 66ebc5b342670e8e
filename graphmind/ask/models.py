"""What the ask loop's LLM calls return (their prompts are the ``.prompt.md`` files beside
this module)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_validator

from graphmind.core.decision import Verdict

MAX_CITATIONS = 4


class Answer(BaseModel):
    """An answer with the candidate numbers it rests on."""

    answer: str = ""
    citations: list[int] = Field(default_factory=list, max_length=MAX_CITATIONS)
    abstain: bool = False

    @field_validator("citations", mode="before")
    @classmethod
    def _citations(cls, value: Any) -> Any:
        if isinstance(value, list):
            return list(dict.fromkeys(value))[:MAX_CITATIONS]
        return value


MAX_VERDICTS = 32


class JudgedAnswer(BaseModel):
    """A verdict with a reason for every passage, and the answer from the used ones."""

    verdicts: list[Verdict] = Field(default_factory=list, max_length=MAX_VERDICTS)
    answer: str = ""

    @field_validator("verdicts", mode="before")
    @classmethod
    def _verdicts(cls, value: Any) -> Any:
        if isinstance(value, list):
            return value[:MAX_VERDICTS]
        return value


MAX_CHECK_CHARS = 160


class Check(BaseModel):
    """The model's check of its own answer: is a link missing, and how to search for it.
    Both texts are bounded (a small model copies a whole passage into the query, to the
    token cap); a longer one from a backend that cannot bound it is cut."""

    complete: bool = False
    missing: str = Field(default="", max_length=MAX_CHECK_CHARS)
    query: str = Field(default="", max_length=MAX_CHECK_CHARS)

    @field_validator("missing", "query", mode="before")
    @classmethod
    def _cut(cls, value: Any) -> Any:
        return value[:MAX_CHECK_CHARS] if isinstance(value, str) else value
