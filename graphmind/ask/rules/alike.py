"""Two more two-option comparisons answered by asking each option a question of its own
and deciding in code (``rules.compare`` does dates):

* **Same country** (yes/no): "Are the directors of films A and B both from the same
  country?", "Were A and B of the same nationality?", "Are A and B located in the same
  country?" ask "What nationality is the director of A?" (or "Which country is A located
  in?") for each option; the answer is yes when the two name the same country.
* **Lifespan**: "Who lived longer, A or B?" asks when each was born and died; the longer
  (or shorter) life wins, at the precision the four dates give.

``same_country`` and ``lifespan`` read the question without a model, like ``comparison``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from graphmind.ask.rules.amount import Amount, amount
from graphmind.ask.rules.compare import Comparison, comparison, options_of, parse_date
from graphmind.ask.rules.hops import FIRST_HOP, OWNED_PEOPLE
from graphmind.ask.rules.text import capitalised
from graphmind.core.scoring import normalize_answer

YES, NO = "yes", "no"

_YES_NO = re.compile(r"^(?:are|were|is|was|do|does|did)\s+", re.IGNORECASE)
_SAME = re.compile(r"\bsame\s+(?:country|nationality|citizenship)\b", re.IGNORECASE)
_NATIONALITY = re.compile(r"\b(?:nationality|citizenship)\b", re.IGNORECASE)
_LOCATED = re.compile(r"\b(?:located|based|situated)\b", re.IGNORECASE)
# where the second option ends: the verb after it, written in lower case (titles in the
# options are capitalised: "The Bank Of England" keeps its "Of")
_AFTER = re.compile(
    r"\s+(?:both\s+)?(?:from|located|based|situated|of|share|shared|have|had|come|came)\b"
)
# whose country it is: "the directors of films A and B", "have the directors that ..."
ROLES = OWNED_PEOPLE | frozenset(
    {"director", "author", "composer", "producer", "creator", "founder", "performer"}
    | {"writer", "singer", "architect", "designer", "developer", "publisher"}
)
_ROLE = re.compile(rf"\b(?P<role>{'|'.join(sorted(ROLES))})s?\b")
_KIND = r"films?|movies?|songs?|albums?|books?|novels?|bands?|shows?|series|magazines?"
_LEADING_WORDS = re.compile(rf"^(?:(?:both|the|of|({'|'.join(sorted(ROLES))})s?|{_KIND})\s+)+")
_TRAILING_WORDS = re.compile(rf"(?:\s+(?:{_KIND}))+$")

_LIVED = re.compile(r"\b(?:lived?|life|lifespan|age)\b", re.IGNORECASE)
_LONGER = re.compile(r"\b(?:longer|longest|older|oldest|more|most)\b", re.IGNORECASE)
_SHORTER = re.compile(r"\b(?:shorter|shortest|younger|youngest|less|least)\b", re.IGNORECASE)
_SPAN = re.compile(r"\b(?:longer|longest|shorter|shortest|older|oldest|younger|youngest|age)\b")


Where = Literal["from", "nationality", "located"]


@dataclass(frozen=True)
class SameCountry:
    """A yes/no question whether two options (or whom they name) share a country."""

    options: tuple[str, str]
    relation: str = ""  # whose country: "director" for "the directors of films A and B"
    where: Where = "from"  # a person's nationality, a place's country, or where it is from

    def subject(self, option: str) -> str:
        """Whose country is asked: the option, or its relation ("the director of A")."""
        return f"the {self.relation} of {option}" if self.relation else option

    def questions(self, option: str) -> list[tuple[str, str]]:
        """The question that asks an option's country and its first hop: "What
        nationality is the director of A?" after "What is the name of the director of
        A?" (the 1.5B answered "Which country is <a rapper> from?" with another
        passage's country, and "What nationality is <he>?" right; "the nationality of
        <him>" reads as a description of someone, a hop of its own)."""
        subject = self.subject(option.rstrip("?"))
        first = f"{FIRST_HOP}{subject}?" if self.relation else ""
        if self.where == "located":
            return [(f"Which country is {subject} located in?", first)]
        if self.where == "nationality":
            return [(f"What nationality is {subject}?", first)]
        return [(f"Which country is {subject} from?", first)]

    def says(self, option: str, country: str) -> str:
        """An option's country as the full answer says it."""
        subject = self.subject(option)
        if self.where == "nationality":
            return f"The nationality of {subject} is {country}."
        where = "is located in" if self.where == "located" else "is from"
        return f"{capitalised(subject)} {where} {country}."


@dataclass(frozen=True)
class Lifespan:
    """Which of two people lived longer (or shorter)."""

    options: tuple[str, str]
    longer: bool = True

    def questions(self, option: str) -> list[tuple[str, str]]:
        """When the option was born, then when they died (no first hop: the options are
        the people)."""
        name = option.rstrip("?")
        return [(f"When was {name} born?", ""), (f"When did {name} die?", "")]


def same_country(question: str) -> SameCountry | None:
    """The same-country question a yes/no question asks of two named options, or None."""
    text = " ".join(question.split())
    aux, same = _YES_NO.match(text), _SAME.search(text)
    if aux is None or same is None:
        return None
    body = text[aux.end() : same.start()]
    split = body.find(" and ")
    if split < 0:
        return None
    rest = _LEADING_WORDS.sub("", body[split + 5 :])
    end = _AFTER.search(rest)
    if end is None:
        return None
    options = tuple(_clean(o) for o in (body[:split], rest[: end.start()]))
    if not all(options) or options[0].lower() == options[1].lower():
        return None
    head = text.replace(options[0], " ").replace(options[1], " ")
    role = _ROLE.search(head)
    where: Where = "from"
    if _LOCATED.search(head):
        where = "located"
    elif role or _NATIONALITY.search(head):
        where = "nationality"
    return SameCountry((options[0], options[1]), role.group("role") if role else "", where)


def _clean(option: str) -> str:
    """An option without the question's words around it ("both films", "the directors of
    films", a trailing "films"): only lower-case words go, a title keeps its own."""
    option = _LEADING_WORDS.sub("", option.strip())
    return _TRAILING_WORDS.sub("", option).strip(" ,\"'“”")


def lifespan(question: str) -> Lifespan | None:
    """A "Who lived longer, A or B?" question, or None."""
    text = " ".join(question.split())
    if not _LIVED.search(text):
        return None
    options = options_of(text, _SPAN)
    if options is None:
        return None
    head = text.replace(options[0], " ").replace(options[1], " ")
    if not _LIVED.search(head):
        return None
    if _SHORTER.search(head):
        return Lifespan(options, longer=False)
    if _LONGER.search(head):
        return Lifespan(options, longer=True)
    return None


def alike(first: str, second: str) -> bool | None:
    """Whether two answers are the same country by their words alone: True when they
    read the same ("the United States" and "United States"); None when they differ, as
    "Italy" and "Italian" do (a model says then)."""
    a, b = normalize_answer(first), normalize_answer(second)
    return True if a and a == b else None


def years_lived(born: str, died: str) -> tuple[float, float] | None:
    """The bounds of a life in years from its two dates as written: exact when both give
    a day, else within the year's uncertainty (1900 to 1950 is 49 to 51 years)."""
    start, end = parse_date(born), parse_date(died)
    if start is None or end is None:
        return None
    low = high = float(end[0] - start[0])
    if all(start) and all(end):
        fraction = ((end[1] - start[1]) * 31 + (end[2] - start[2])) / 372
        return low + fraction, high + fraction
    if start[1] and end[1]:
        fraction = (end[1] - start[1]) / 12
        return low + fraction - 1 / 12, high + fraction + 1 / 12
    return low - 1, high + 1


def longer(asks: Lifespan, lives: tuple[tuple[str, str], tuple[str, str]]) -> str | None:
    """The option who lived longer (or shorter), or None when a date is missing or the
    two lives overlap at the precision given."""
    first, second = (years_lived(*life) for life in lives)
    if first is None or second is None or min(first + second) < 0:
        return None
    if first[0] > second[1]:
        won = 0
    elif second[0] > first[1]:
        won = 1
    else:
        return None
    return asks.options[won if asks.longer else 1 - won]


Asks = Comparison | SameCountry | Lifespan | Amount


def two_options(question: str) -> Asks | None:
    """The two-option comparison a question asks, decided in code once each option's
    question is answered: dates, the same country, lifespans, measures; None for anything
    else."""
    return comparison(question) or same_country(question) or lifespan(question) or amount(question)
