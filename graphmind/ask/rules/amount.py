"""Two-option comparisons of amounts: "Which opera has more acts, A or B?", "Who has won
more Grand Slam titles, A or B?", "Which mountain is higher, A or B?", "Which city has a
larger population, A or B?". Each option's amount is asked as a question of its own
("How many acts does A have?", "How high is A?", "What is the population of A?") and the
two numbers are compared here, as ``rules.compare`` does dates: a small model reads a
number from a passage well and compares two badly.

``amount`` reads the question; ``parse_amount`` reads a number as written (digits or
words, a scale, a unit of length or time); ``larger`` says which option wins, or None when the
two amounts cannot be compared (a unit on one and not the other, a tie).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from graphmind.ask.rules.compare import options_of

Kind = Literal["count", "measure", "property"]

# "more acts", "fewer members": a count of what follows, up to the comma before the options
_COUNT = re.compile(r"\b(?P<dir>more|fewer|less)\s+(?P<what>[^,?]+?)\s*,", re.IGNORECASE)
# "higher elevation", "a larger population": a property of each option
_PROPERTY = re.compile(
    r"\b(?P<dir>higher|greater|larger|bigger|lower|smaller)\s+(?P<what>[^,?]+?)\s*,",
    re.IGNORECASE,
)
# "is higher,", "is taller,": a measure named by its adjective
_MEASURE = re.compile(
    r"\b(?:is|was|are|were)\s+(?:the\s+)?(?P<dir>higher|taller|longer|deeper|wider|heavier"
    r"|lower)\s*,",
    re.IGNORECASE,
)
_WORD = re.compile(
    r"\b(?:more|fewer|less|higher|greater|larger|bigger|lower|smaller|taller|longer|deeper"
    r"|wider|heavier)\b",
    re.IGNORECASE,
)
_LESS = frozenset({"fewer", "less", "lower", "smaller"})
_ADJECTIVE = {
    "higher": "high",
    "lower": "high",
    "taller": "tall",
    "longer": "long",
    "deeper": "deep",
    "wider": "wide",
    "heavier": "heavy",
}
# what a question means by the verb before "more": "has won more titles" is asked "How
# many titles has A won?", "worked for more companies" "How many companies has A worked
# for?", "contains more species" "How many species does A have?"
_IRREGULAR = {"won": "won", "win": "won", "wins": "won", "wrote": "written", "written": "written"}
_IRREGULAR |= {"sold": "sold", "made": "made", "held": "held", "built": "built"}
_HAVING = frozenset({"contained", "included", "featured", "owned", "possessed", "housed"})
_PREPOSITIONS = frozenset({"for", "in", "with", "on", "at", "to", "from", "into"})
_LIVED = re.compile(r"\b(?:lived?|life|lifespan|age|aged)\b", re.IGNORECASE)
_NOT_PLURAL = re.compile(r"(?:ous|ss|ful|ly|ed)$", re.IGNORECASE)


@dataclass(frozen=True)
class Amount:
    """What a two-option comparison of amounts asks."""

    options: tuple[str, str]
    more: bool  # the option with the larger amount wins
    kind: Kind
    what: str  # "acts"; "population"; "high"
    done: str = ""  # a count's verb, as its participle: "won" for "has won more titles"

    def questions(self, option: str) -> list[tuple[str, str]]:
        """The question that asks an option's amount (no first hop: the options are what
        is counted or measured)."""
        return [(self.question(option.rstrip("?")), "")]

    def question(self, option: str) -> str:
        """How many, how high, or what the property is."""
        if self.kind == "measure":
            return f"How {self.what} is {option}?"
        if self.kind == "property":
            return f"What is the {self.what} of {option}?"
        if self.done:
            return f"How many {self.what} has {option} {self.done}?"
        return f"How many {self.what} does {option} have?"

    def says(self, option: str, answer: str) -> str:
        """An option's amount as the full answer says it."""
        if self.kind == "measure":
            return f"{option} is {answer} {self.what}."
        if self.kind == "property":
            return f"The {self.what} of {option} is {answer}."
        counted = answer if self.what.lower() in answer.lower() else f"{answer} {self.what}"
        return f"{option} has {self.done} {counted}." if self.done else f"{option} has {counted}."


def amount(question: str) -> Amount | None:
    """The comparison of two options' amounts a question asks, or None."""
    text = " ".join(question.split())
    if _LIVED.search(text):
        return None  # "lived longer" is a lifespan
    options = options_of(text, _WORD)
    if options is None:
        return None
    head = text[: text.find(options[0])] if options[0] in text else text
    if found := _MEASURE.search(head):
        word = found.group("dir").lower()
        return Amount(options, word not in _LESS, "measure", _ADJECTIVE[word])
    if found := _COUNT.search(head):
        what = found.group("what").strip()
        last = what.split()[-1]
        if not last.lower().endswith("s") or _NOT_PLURAL.search(last):
            return None  # "more popular", "more famous": not a count
        if what.lower().startswith("than "):
            return None  # "more than 300 papers": a threshold, not a comparison of counts
        done = _done(head[: found.start()].split())
        return Amount(options, found.group("dir").lower() == "more", "count", what, done)
    if found := _PROPERTY.search(head):
        what = re.sub(r"^(?:the|a|an)\s+", "", found.group("what").strip(), flags=re.I)
        if not what:
            return None
        return Amount(options, found.group("dir").lower() not in _LESS, "property", what)
    return None


def _done(before: list[str]) -> str:
    """The participle (and its preposition) a count's verb asks with: "won", "worked
    for"; "" for a verb of having ("has", "contains")."""
    words = [w.lower() for w in before[-2:]]
    preposition = words[-1] if words and words[-1] in _PREPOSITIONS else ""
    verb = words[-2] if preposition and len(words) == 2 else (words[-1] if words else "")
    if verb in _IRREGULAR:
        participle = _IRREGULAR[verb]
    elif verb.endswith("ed") and verb not in _HAVING:
        participle = verb
    else:
        return ""
    return f"{participle} {preposition}".strip()


_SMALL = {
    word: number
    for number, word in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80}
_SCALES = {"hundred": 1e2, "thousand": 1e3, "million": 1e6, "billion": 1e9}
# units a measure is read in, by what they measure and their size in its base unit
_UNITS: dict[str, tuple[str, float]] = {
    unit: (dimension, size)
    for dimension, table in (
        (
            "length",
            {
                "m metre metres meter meters": 1.0,
                "km kilometre kilometres kilometer kilometers": 1000.0,
                "cm centimetre centimetres centimeter centimeters": 0.01,
                "ft feet foot": 0.3048,
                "mi mile miles": 1609.344,
            },
        ),
        (
            "time",
            {
                "sec secs second seconds": 1.0,
                "min mins minute minutes": 60.0,
                "hr hrs hour hours": 3600.0,
            },
        ),
    )
    for names, size in table.items()
    for unit in names.split()
}
_UNIT = "|".join(sorted(_UNITS, key=len, reverse=True))
# a number ends at a non-word character or at a unit written onto it ("8035m")
_NUMBER = re.compile(
    rf"(?<![\w.,])(?:(?P<digits>\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    rf"|(?P<word>{'|'.join(sorted(_SMALL, key=len, reverse=True))}))(?=\W|$|(?:{_UNIT})\b)"
    rf"(?:\s+(?P<scale>{'|'.join(_SCALES)}))?"
    rf"(?:\s*(?P<unit>{_UNIT})\b)?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Quantity:
    """A number as written, in its dimension's base unit when it had a unit (metres,
    seconds)."""

    value: float
    dimension: str  # "length", "time", or "" for a plain number
    written: float  # the number as written, before its unit: what a passage states


def parse_amount(text: str) -> Quantity | None:
    """The first number in ``text`` ("7,816 m", "three", "1.2 million", "26,864 ft")."""
    found = _NUMBER.search(text)
    if found is None:
        return None
    return _quantity(found)


def numbers_in(text: str) -> set[float]:
    """Every number ``text`` writes, as written (before a unit), to check an answer by."""
    return {_quantity(found).written for found in _NUMBER.finditer(text)}


def _quantity(found: re.Match[str]) -> Quantity:
    digits, word = found.group("digits"), found.group("word")
    number = float(digits.replace(",", "")) if digits else float(_SMALL[word.lower()])
    if found.group("scale"):
        number *= _SCALES[found.group("scale").lower()]
    dimension, size = _UNITS.get((found.group("unit") or "").lower(), ("", 1.0))
    return Quantity(number * size, dimension, number)


def larger(asks: Amount, answers: tuple[str, str]) -> str | None:
    """The option whose amount wins, or None when an amount is missing, the two are not
    in comparable units, or they tie."""
    first, second = (parse_amount(a) for a in answers)
    if first is None or second is None or first.dimension != second.dimension:
        return None
    if first.value == second.value:
        return None
    won = 0 if first.value > second.value else 1
    return asks.options[won if asks.more else 1 - won]
