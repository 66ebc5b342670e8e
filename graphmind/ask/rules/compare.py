"""Two-option date comparisons ("Which film came out first, A or B?", "Which film has the
director who died later, A or B?", "Was A or B born first?"): each option's date is asked
as a question of its own and the two dates are compared here, not by the model (a small
model reads a date well and compares two badly).

``comparison`` reads the question's options, the event whose dates are compared (born,
died, released, founded, ...), whether the earlier or the later one wins, and the
relation the date belongs to ("the director of A"); ``parse_date`` reads a date as
written in a passage; ``pick`` says which option wins, or None when the dates cannot
decide it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from graphmind.ask.rules.hops import OWNED_PEOPLE, first_hop

Direction = Literal["earlier", "later"]

_EARLIER = r"earlier|earliest|first|older|oldest|elder|sooner|before"
_LATER = r"later|latest|last|more\s+recently|most\s+recently|younger|youngest|newer|newest|after"
_DIRECTION = re.compile(rf"\b(?:(?P<earlier>{_EARLIER})|(?P<later>{_LATER}))\b", re.IGNORECASE)
_AGE = re.compile(r"\b(older|oldest|elder|younger|youngest)\b", re.IGNORECASE)
_LIFESPAN = re.compile(r"\b(lived?|lives|age|aged)\b", re.IGNORECASE)  # not a date: a span
# who has an age by birth ("Which film director is younger ...?"); other things are made
PEOPLE = OWNED_PEOPLE | frozenset(
    {"who", "person", "people", "man", "woman", "actor", "actress", "player", "athlete"}
    | {"footballer", "musician", "artist", "politician", "poet", "scientist", "painter"}
)
_BORN = re.compile(r"\bborn\b", re.IGNORECASE)
_DIED = re.compile(r"\b(die|died|dies|death)\b", re.IGNORECASE)
_RELEASED = re.compile(r"\b(?:released|came\s+out|come\s+out|premiered|aired)\b", re.IGNORECASE)
_MADE = re.compile(
    r"\b(founded|established|formed|started|launched|opened|published|created|built"
    r"|introduced|inaugurated|completed)\b",
    re.IGNORECASE,
)
# "Which film has the director who ...", "Which film whose director is younger ..."
_RELATION = re.compile(r"\b(?:whose|(?:has|had|have)\s+the)\s+(?P<rel>[a-z]+)\b")
# "..., A or B?": the options follow the first comma after the comparison's word
_OR = re.compile(r"\s+or\s+", re.IGNORECASE)
# "Was A or B born first?"
_LEADING = re.compile(
    r"^(?:was|were|is|are|did|does)\s+(?P<a>.+?)\s+or\s+(?P<b>.+?)\s+"
    r"(?=(?:born|die|died|released|came|come|premiered|aired|founded|established|formed"
    r"|started|launched|opened|published|created|built)\b)",
    re.IGNORECASE,
)
# "Who was born first out of A and B?", "... between A and B?"
_AMONG = re.compile(r"\b(?:out\s+of|between)\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)\s*\??\s*$")

_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            "january jan",
            "february feb",
            "march mar",
            "april apr",
            "may",
            "june jun",
            "july jul",
            "august aug",
            "september sep sept",
            "october oct",
            "november nov",
            "december dec",
        ),
        start=1,
    )
    for name in names.split()
}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY_MONTH_YEAR = re.compile(
    rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month>{_MONTH})\.?,?\s+(?P<year>\d{{3,4}})\b",
    re.IGNORECASE,
)
_MONTH_DAY_YEAR = re.compile(
    rf"\b(?P<month>{_MONTH})\.?\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<year>\d{{3,4}})\b",
    re.IGNORECASE,
)
_MONTH_YEAR = re.compile(rf"\b(?P<month>{_MONTH})\.?,?\s+(?P<year>\d{{3,4}})\b", re.IGNORECASE)
_ISO = re.compile(r"\b(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})\b")
_YEAR = re.compile(r"\b(?P<year>\d{4})\b(?P<bc>\s*(?:BC|BCE|B\.C\.))?")


@dataclass(frozen=True)
class Comparison:
    """What a two-option date comparison asks."""

    options: tuple[str, str]
    direction: Direction  # the option with the earlier or the later date wins
    event: str  # "born", "died", or the verb of what happened ("released", "founded")
    relation: str = ""  # whose date it is: "director" for "the director of A"

    def subject(self, option: str) -> str:
        """Whose date is asked: the option, or its relation ("the director of A")."""
        return f"the {self.relation} of {option}" if self.relation else option

    def questions(self, option: str) -> list[tuple[str, str]]:
        """The one question that asks an option's date, and its first hop ("What is the
        name of the director of A?" before "When did the director of A die?": round 1's
        guess at the whole would be checked by that hop anyway)."""
        question = self.question(option)
        return [(question, first_hop(question))]

    def question(self, option: str) -> str:
        """The question that asks one option's date (a title's own "?" left out: "When did
        the director of What's Your Husband Doing die?")."""
        subject = self.subject(option.rstrip("?"))
        if self.event == "born":
            return f"When was {subject} born?"
        if self.event == "died":
            return f"When did {subject} die?"
        return f"When was {subject} {self.event}?"


def comparison(question: str) -> Comparison | None:
    """The date comparison a question asks between two named options, or None when it
    asks something else (a yes/no question, "more directors", "lived longer")."""
    text = " ".join(question.split())
    options = options_of(text)
    if options is None:
        return None
    head = text
    for option in options:
        head = head.replace(option, " ")
    direction = _DIRECTION.search(head)
    if direction is None:
        return None
    relation = _RELATION.search(head)
    rel = relation.group("rel") if relation else ""
    if rel in ("same", "more", "most", "less", "fewer", "other") or _DIRECTION.fullmatch(rel):
        rel = ""
    if _LIFESPAN.search(head):
        return None
    if _DIED.search(head):
        event = "died"
    elif _BORN.search(head):
        event = "born"
    elif _AGE.search(head):  # a person's age is their birth; a thing's, its making
        asked = head[: direction.start()].lower().split()
        event = "born" if rel or PEOPLE.intersection(asked) else "created"
    elif _RELEASED.search(head):
        event = "released"
    elif made := _MADE.search(head):
        event = made.group(1).lower()
    else:
        return None
    return Comparison(
        options=options,
        direction="earlier" if direction.group("earlier") else "later",
        event=event,
        relation=rel,
    )


def options_of(text: str, word: re.Pattern[str] | None = None) -> tuple[str, str] | None:
    """The two options a question offers, as written: "Was A or B ...", "... out of A
    and B?", or "..., A or B?" after the first comma that follows ``word`` (the
    comparison's earlier/later by default)."""
    for pattern in (_LEADING, _AMONG):
        found = pattern.search(text)
        if found:
            return _pair(found.group("a"), found.group("b"))
    found = (word or _DIRECTION).search(text)
    comma = text.find(",", found.end()) if found else -1
    if comma < 0:
        return None
    parts = _OR.split(text[comma + 1 :].strip())
    if len(parts) != 2:  # none, or a title with "or" in it: which "or" splits is unknown
        return None
    return _pair(parts[0], parts[1])


def _pair(a: str, b: str) -> tuple[str, str] | None:
    """Two options without the question's closing mark and quotes; None if one is empty."""
    cleaned = [re.sub(r"\s*\?\s*$", "", o.strip()).strip(" \"'“”") for o in (a, b)]
    if not all(cleaned) or cleaned[0].lower() == cleaned[1].lower():
        return None
    return cleaned[0], cleaned[1]


def parse_date(text: str) -> tuple[int, int, int] | None:
    """The first date written in ``text`` as (year, month, day), 0 for a part not
    given ("1904" is (1904, 0, 0)); years before the common era are negative."""
    for pattern in (_DAY_MONTH_YEAR, _MONTH_DAY_YEAR, _ISO, _MONTH_YEAR):
        found = pattern.search(text)
        if found:
            parts = found.groupdict()
            month = parts["month"]
            number = int(month) if month.isdigit() else _MONTHS[month.lower().rstrip(".")]
            day = int(parts.get("day") or 0)
            if 1 <= number <= 12 and day <= 31:
                return int(parts["year"]), number, day
    year = _YEAR.search(text)
    if year is None:
        return None
    value = int(year.group("year"))
    return (-value if year.group("bc") else value), 0, 0


def pick(comparison: Comparison, dates: tuple[str, str]) -> str | None:
    """The option whose date wins, or None when a date is missing or the two cannot be
    told apart at the precision both give (1904 against May 1904)."""
    first, second = (parse_date(d) for d in dates)
    if first is None or second is None:
        return None
    for a, b in zip(first, second, strict=True):
        if not a or not b:
            return None
        if a != b:
            earlier = 0 if a < b else 1
            won = earlier if comparison.direction == "earlier" else 1 - earlier
            return comparison.options[won]
    return None
