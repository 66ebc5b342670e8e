"""Both: a yes/no question whether two named options share a property, answered by
asking each option alone and joining the answers in code.

"Are Sutera and Rhodotypos both types of shrub?" asks "Is Sutera a type of shrub?" and
"Is Rhodotypos a type of shrub?"; "Did A and B both publish more than 15 novels?" asks
"Did A publish more than 15 novels?". The answer is yes when both answers are yes, no as
soon as one is no. A question that asks whether the two share one value ("the same
country", "the same company") is not this: its answers are compared, not joined.

``both`` reads the question without a model, like ``rules.compare.comparison``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphmind.ask.rules.text import capitalised

# the auxiliary that opens the question, and the one each option's question opens with
_SINGULAR = {"are": "is", "were": "was", "do": "does", "have": "has"}
_AUX = r"(?i:are|were|is|was|do|does|did|have|has|had|can|could|will|would)"
# "Are A and B both X?", "Did A and B both Y?"
_AFTER = re.compile(rf"^(?P<aux>{_AUX})\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)\s+both\s+(?P<x>.+?)\s*\?$")
# "Were both A and B X?": B is the capitalised run after "and" (a title's "of", "the"
# between its words); X begins in lower case
_WORD = r"[A-Z0-9][\w.'\u2019&-]*"
_BEFORE = re.compile(
    rf"^(?P<aux>{_AUX})\s+both\s+(?P<a>.+?)\s+and\s+"
    rf"(?P<b>{_WORD}(?:\s+(?:(?:of|the|de|la|von|van)\s+)*{_WORD})*)"
    r"\s+(?P<x>(?!(?:of|the|de|la|von|van)\b)[a-z].*?)\s*\?$"
)
# a run's last word that belongs to the property: "ESA" in "Reinhold Ewald ESA
# astronauts", "American" in "Kings of Leon American rock bands"
_QUALIFIER = re.compile(r"^(?:[A-Z]{2,}|[A-Z][a-z]+(?:an|ese|ish))$")
# not a property both have: a value they share, or a choice between them
_SHARED = re.compile(r"\b(?:same|different|either|neither|or|each\s+other)\b", re.IGNORECASE)
_PREPOSITIONS = frozenset(
    [
        "of",
        "for",
        "in",
        "from",
        "by",
        "with",
        "to",
        "on",
        "at",
        "as",
        "about",
        "among",
        "into",
        "under",
        "within",
    ]
)
_ARTICLES = frozenset({"a", "an", "the"})
_LOWER_START = re.compile(r"^(?:[a-z]\S*\s+)+")  # "the films Alpha": "Alpha"
_IRREGULAR = {"genera": "genus", "people": "person", "men": "man", "women": "woman"}
_AN_LETTERS = "aefhilmnorsx"  # an acronym's first letter said with a vowel: "an ESA"


@dataclass(frozen=True)
class Both:
    """Whether both options have a property: each option asked alone ("Is A X?")."""

    options: tuple[str, str]
    verb: str  # the option's question opens with it: "Is", "Was", "Did", "Does"
    property: str  # what is asked of each, made singular: "a type of shrub"

    def question(self, option: str) -> str:
        """The yes/no question for one option: "Is Sutera a type of shrub?"."""
        return f"{self.verb} {option} {self.property}?"

    def questions(self, option: str) -> list[tuple[str, str]]:
        """The option's question, with no first hop (the options are named)."""
        return [(self.question(option), "")]

    def says(self, option: str, answer: bool) -> str:
        """An option's answer as the full answer says it."""
        return f"{capitalised(self.question(option))} {'Yes' if answer else 'No'}."


def both(question: str) -> Both | None:
    """The "both" question a yes/no question asks of two named options, or None."""
    text = " ".join(question.split())
    if _SHARED.search(text):
        return None
    match = _AFTER.match(text) or _BEFORE.match(text)
    if match is None:
        return None
    a, b = (_LOWER_START.sub("", match.group(g)).strip(" ,\"'“”") for g in ("a", "b"))
    prop = match.group("x").strip()
    if match.re is _BEFORE:
        *name, last = b.split()
        if len(name) >= 2 and _QUALIFIER.match(last):
            b, prop = " ".join(name), f"{last} {prop}"
    if not a or not b or a.lower() == b.lower() or " both " in f" {a} {b} ":
        return None
    aux = match.group("aux").lower()
    verb = capitalised(_SINGULAR.get(aux, aux))
    if aux in ("are", "were"):
        prop = _singular(prop)
    return Both((a, b), verb, prop)


def yes_no(answer: str) -> bool | None:
    """An answer read as yes (True) or no (False): its first word; None for anything
    else."""
    first = answer.strip().split(maxsplit=1)[:1]
    word = first[0].strip(".,!;:").lower() if first else ""
    return {"yes": True, "no": False}.get(word)


def _singular(prop: str) -> str:
    """A plural noun phrase made singular with its article ("types of shrub" -> "a type
    of shrub", "American writers" -> "an American writer"); anything else as it is
    ("of Armenian descent", "American")."""
    words = prop.split()
    if not words or words[0].lower() in _PREPOSITIONS | _ARTICLES:
        return prop
    end = next((i for i, w in enumerate(words) if w.lower() in _PREPOSITIONS), len(words))
    head = end - 1
    noun = words[head].rstrip(",")
    one = _one(noun)
    if head < 0 or one == noun:
        return prop
    words[head] = words[head].replace(noun, one)
    letters = re.match(r"[A-Za-z]*", words[0]).group()  # type: ignore[union-attr]
    said = _AN_LETTERS if letters.isupper() and len(letters) > 1 else "aeiou"
    article = "an" if letters[:1].lower() in said else "a"
    return f"{article} {' '.join(words)}"


def _one(noun: str) -> str:
    """One of a plural noun ("documentaries" -> "documentary"); a word that is not a
    regular plural as it is."""
    lower = noun.lower()
    if lower in _IRREGULAR:
        return noun[:1] + _IRREGULAR[lower][1:]
    if len(lower) < 4 or not lower.endswith("s") or lower.endswith(("ss", "us", "is")):
        return noun
    if lower.endswith("ies"):
        return noun[:-3] + "y"
    if lower.endswith(("sses", "ches", "shes", "xes", "uses")):
        return noun[:-2]
    return noun[:-1]
