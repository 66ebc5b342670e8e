"""Two-option comparisons of measures: "Which mountain is higher, A or B?", "Which river
is longer, A or B?", "Which city has a larger population, A or B?". Each option's measure
is asked as a question of its own ("How high is A?", "What is the population of A?") and
the two numbers are compared here, as ``rules.compare`` does dates: a small model reads a
number from a passage well and compares two badly.

Counts ("Which opera has more acts, A or B?") are not asked so: a passage seldom writes
a count as a number (it names the acts or the albums), the 1.5B guessed one instead, and
each guess cost a sub-question before the loop took the question anyway
(docs/ask-loop.md, "Measures").

``amount`` reads the question; ``parse_amount`` reads a number as written (digits or
words, a scale, a unit of length or time); ``larger`` says which option wins, or None
when the two cannot be compared (a unit on one and not the other, a tie).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from graphmind.ask.rules.compare import options_of

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
    r"\b(?:higher|greater|larger|bigger|lower|smaller|taller|longer|deeper|wider|heavier)\b",
    re.IGNORECASE,
)
_LESS = frozenset({"lower", "smaller"})
_ADJECTIVE = {
    "higher": "high",
    "lower": "high",
    "taller": "tall",
    "longer": "long",
    "deeper": "deep",
    "wider": "wide",
    "heavier": "heavy",
}
_LIVED = re.compile(r"\b(?:lived?|life|lifespan|age|aged)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Amount:
    """What a two-option comparison of measures asks."""

    options: tuple[str, str]
    more: bool  # the option with the larger amount wins
    what: str  # the measure's adjective ("high") or the property ("population")
    adjective: bool = True  # "How high is A?", else "What is the population of A?"

    def questions(self, option: str) -> list[tuple[str, str]]:
        """The question that asks an option's measure (no first hop: the options are
        what is measured)."""
        return [(self.question(option.rstrip("?")), "")]

    def question(self, option: str) -> str:
        """How high (long, ...) the option is, or what its property is."""
        if self.adjective:
            return f"How {self.what} is {option}?"
        return f"What is the {self.what} of {option}?"

    def says(self, option: str, answer: str) -> str:
        """An option's measure as the full answer says it."""
        if self.adjective:
            return f"{option} is {answer} {self.what}."
        return f"The {self.what} of {option} is {answer}."


def amount(question: str) -> Amount | None:
    """The comparison of two options' measures a question asks, or None."""
    text = " ".join(question.split())
    if _LIVED.search(text):
        return None  # "lived longer" is a lifespan
    options = options_of(text, _WORD)
    if options is None:
        return None
    head = text[: text.find(options[0])] if options[0] in text else text
    if found := _MEASURE.search(head):
        word = found.group("dir").lower()
        return Amount(options, word not in _LESS, _ADJECTIVE[word])
    if found := _PROPERTY.search(head):
        what = re.sub(r"^(?:the|a|an)\s+", "", found.group("what").strip(), flags=re.I)
        if what:
            return Amount(options, found.group("dir").lower() not in _LESS, what, False)
    return None


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


def with_unit(answer: str, passages: Sequence[str]) -> str:
    """The answer with the unit a passage writes its number in, when it gave none ("7205"
    read from "7,205 m" is 7205 m); else the answer as it is."""
    found = parse_amount(answer)
    if found is None or found.dimension:
        return answer
    for text in passages:
        for match in _NUMBER.finditer(text):
            if match.group("unit") and _quantity(match).written == found.written:
                return f"{answer} {match.group('unit')}"
    return answer


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
