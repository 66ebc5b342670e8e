"""What the ask loop's LLM calls return (their prompts are the ``.prompt.md`` files beside
this module)."""

from __future__ import annotations

from functools import cache
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field, create_model, field_validator

from graphmind.core.decision import Verdict, verdict_word
from graphmind.core.text import whole_sentences

MAX_CITATIONS = 4


def distinct_citations(value: Any) -> Any:
    """A list of citations without repeats, cut to ``MAX_CITATIONS`` (anything else is
    left for validation to refuse)."""
    if isinstance(value, list):
        return list(dict.fromkeys(value))[:MAX_CITATIONS]
    return value


class Answer(BaseModel):
    """An answer with the candidate numbers it rests on."""

    answer: str = ""
    citations: list[int] = Field(default_factory=list, max_length=MAX_CITATIONS)
    abstain: bool = False

    @field_validator("citations", mode="before")
    @classmethod
    def _citations(cls, value: Any) -> Any:
        return distinct_citations(value)


class OneCountry(BaseModel):
    """Whether two answers, written differently, name one country."""

    same: bool = False


MAX_SENTENCES = 4
SENTENCE_CHARS = 400
# the real sentences a full answer keeps: a "sentence" may be several, and a small model
# that copies a table writes a dozen row by row (17 in one answer on Python's manual)
MAX_STATEMENTS = 6


class Sentence(BaseModel):
    """One sentence of the full answer and the passage numbers it rests on."""

    text: str = Field(default="", max_length=SENTENCE_CHARS)
    citations: list[int] = Field(default_factory=list, max_length=MAX_CITATIONS)

    @field_validator("text", mode="before")
    @classmethod
    def _cut(cls, value: Any) -> Any:
        return whole_sentences(value, SENTENCE_CHARS) if isinstance(value, str) else value

    @field_validator("citations", mode="before")
    @classmethod
    def _citations(cls, value: Any) -> Any:
        return distinct_citations(value)


class FullAnswer(BaseModel):
    """The full answer: a few sentences, each citing the passages it rests on."""

    # shown to the model instead of the schema (about 40 tokens against 130): its prompt
    # names the fields and the grammar holds their order and bounds
    example: ClassVar[dict[str, Any]] = {
        "sentences": [
            {"text": "first sentence", "citations": [2]},
            {"text": "second sentence", "citations": [1, 3]},
        ]
    }
    limit: ClassVar[int] = MAX_SENTENCES
    sentences: list[Sentence] = Field(default_factory=list, max_length=MAX_SENTENCES)

    @field_validator("sentences", mode="before")
    @classmethod
    def _bound(cls, value: Any) -> Any:
        return value[: cls.limit] if isinstance(value, list) else value


MAX_VERDICTS = 32
JUDGED_REASON_CHARS = 80  # "a few words why"; a longer one from an unbounded backend is cut


# The judged call's verdict: a short reason and no confidence delta (the 1.5B wrote 0.0
# for every passage, 8 tokens each). Its docstring is shown to the model in the schema.
class JudgedVerdict(BaseModel):
    """One passage's verdict: its number, used or rejected, and a few words why."""

    ref: int = Field(ge=1)
    verdict: Literal["used", "rejected"]
    reason: str = Field(default="", max_length=JUDGED_REASON_CHARS)

    @field_validator("verdict", mode="before")
    @classmethod
    def _verdict(cls, value: Any) -> Any:
        return verdict_word(value)

    @field_validator("reason", mode="before")
    @classmethod
    def _cut(cls, value: Any) -> Any:
        return value[:JUDGED_REASON_CHARS] if isinstance(value, str) else value

    def as_verdict(self) -> Verdict:
        """The verdict as the graph keeps it."""
        return Verdict(ref=self.ref, verdict=self.verdict, reason=self.reason)


class JudgedAnswer(BaseModel):
    """A verdict with a reason for every passage, and the answer from the used ones."""

    limit: ClassVar[int] = MAX_VERDICTS
    verdicts: list[JudgedVerdict] = Field(default_factory=list, max_length=MAX_VERDICTS)
    answer: str = ""

    @field_validator("verdicts", mode="before")
    @classmethod
    def _verdicts(cls, value: Any) -> Any:
        if isinstance(value, list):
            return value[: cls.limit]
        return value


@cache
def judged_answer(passages: int) -> type[JudgedAnswer]:
    """``JudgedAnswer`` allowing one verdict per passage at most. The schema's
    ``maxItems`` becomes the grammar's bound, which closes the list after the last
    passage: without it the 1.5B went on judging passages 11, 12, ... of 10 until the
    token cap and lost the answer that comes after the verdicts."""
    count = min(passages, MAX_VERDICTS)
    model = create_model(
        "JudgedAnswer",
        __base__=JudgedAnswer,
        verdicts=(list[JudgedVerdict], Field(default_factory=list, max_length=count)),
    )
    model.limit = count
    return model


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


class Reflection(Check):
    """The reflect policy's call: the check's fields, and the next hop's question when the
    answer is a step on the way (self-ask's follow-up, ToG-3's Reflector)."""

    next_question: str = Field(default="", max_length=MAX_CHECK_CHARS)

    @field_validator("next_question", mode="before")
    @classmethod
    def _cut_question(cls, value: Any) -> Any:
        return value[:MAX_CHECK_CHARS] if isinstance(value, str) else value


# The broad path (``graphmind.ask.broad``): the map call's points from one community, and
# the reduce call's answer from the best points.
MAX_POINTS = 3
POINT_CHARS = 300
BROAD_TITLE_CHARS = 120
BROAD_SUMMARY_CHARS = 600
MAX_BROAD_SENTENCES = 5


def _cut(value: Any, chars: int) -> Any:
    return " ".join(value.split())[:chars] if isinstance(value, str) else value


class Point(BaseModel):
    """One point a community's passages make toward a broad question."""

    text: str = Field(default="", max_length=POINT_CHARS)
    passages: list[int] = Field(default_factory=list, max_length=MAX_CITATIONS)
    score: int = Field(default=50, ge=0, le=100)

    @field_validator("text", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return _cut(value, POINT_CHARS)

    @field_validator("passages", mode="before")
    @classmethod
    def _passages(cls, value: Any) -> Any:
        return distinct_citations(value)

    @field_validator("score", mode="before")
    @classmethod
    def _score(cls, value: Any) -> Any:
        return min(100, max(0, int(value))) if isinstance(value, int | float) else value


class CommunityPoints(BaseModel):
    """The map call: what one community is about (its summary, kept when it had none)
    and the points its passages make toward the question."""

    title: str = Field(default="", max_length=BROAD_TITLE_CHARS)
    summary: str = Field(default="", max_length=BROAD_SUMMARY_CHARS)
    points: list[Point] = Field(default_factory=list, max_length=MAX_POINTS)

    @field_validator("title", mode="before")
    @classmethod
    def _title(cls, value: Any) -> Any:
        return _cut(value, BROAD_TITLE_CHARS)

    @field_validator("summary", mode="before")
    @classmethod
    def _summary(cls, value: Any) -> Any:
        return _cut(value, BROAD_SUMMARY_CHARS)

    @field_validator("points", mode="before")
    @classmethod
    def _points(cls, value: Any) -> Any:
        return value[:MAX_POINTS] if isinstance(value, list) else value


class BroadAnswer(FullAnswer):
    """The reduce call: a few sentences, each citing the numbered points it rests on."""

    limit: ClassVar[int] = MAX_BROAD_SENTENCES
    sentences: list[Sentence] = Field(default_factory=list, max_length=MAX_BROAD_SENTENCES)
