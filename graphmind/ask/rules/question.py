"""Reading a question: the names it mentions, the kind of answer it wants."""

from __future__ import annotations

import re

from graphmind.ask.rules.text import STOPWORDS, content_stems
from graphmind.core.scoring import normalize_answer

TEMPORAL = re.compile(
    r"\b(when|what year|which year|what date|how long|since when|until when|how many years"
    r"|what century|what decade|born|died|founded)\b",
    re.IGNORECASE,
)


_CONNECTOR = r"(?:of|de|del|da|di|du|la|le|van|von|der|den|the|and|&|on|upon|in)"
_NAME = re.compile(rf"[A-Z0-9][\w'\u2019.-]*(?:\s+(?:{_CONNECTOR}\s+)*[A-Z0-9][\w'\u2019.-]*)*")
_QUOTED = re.compile(r"[\"“]([^\"”]{2,80})[\"”]")
QUOTES = '"“”'
_OPENERS = STOPWORDS  # words left out where they open a run of capitalised words


_DISAMBIGUATOR = re.compile(r"\s*\([^()]*\)")


def without_disambiguators(text: str) -> str:
    """``text`` without Wikipedia's parenthesised disambiguators ("Excalibur (Film)",
    "Chatterbox (1936 Film)"): what they hold is no name of its own (as a name, "Film"
    picks every passage on a film, a film director's included)."""
    return " ".join(_DISAMBIGUATOR.sub(" ", text).split())


def question_entities(question: str) -> list[str]:
    """The names a question mentions: quoted titles and runs of capitalised words (the
    question word that opens the sentence and disambiguators, "(Film)", left out)."""
    found = [m.group(1).strip() for m in _QUOTED.finditer(question)]
    for m in _NAME.finditer(_QUOTED.sub(" ", without_disambiguators(question))):
        words = m.group(0).rstrip(".").split()
        while words and words[0].lower() in _OPENERS:
            words = words[1:]
        if words:
            found.append(" ".join(words))
    return list(dict.fromkeys(e for e in found if normalize_answer(e)))


# the verbs that open a yes/no question ("Are ...", "Did ...")
_AUXILIARIES = frozenset(
    ["is", "are", "was", "were", "do", "does", "did", "can", "could", "has", "have", "had"]
)
_CHOICE = re.compile(r"\bor\b", re.IGNORECASE)


def off_kind(question: str, answer: str) -> str:
    """The note for an answer of the wrong kind: not yes or no to a yes/no question
    ("Disney" to "Are Aladdin and Song of the South produced by the same company?"),
    or none of the names a choice offers ("1993" to "Was Jamie Curry or Alyaksey
    Vasilewski born first?"); "" when the answer fits, or there is none."""
    words = normalize_answer(answer).split()
    first = question.split(maxsplit=1)[0].lower() if question.strip() else ""
    if not words:
        return ""
    if _CHOICE.search(question) and ("," in question or first in _AUXILIARIES):
        if set(words) & set(normalize_answer(question).split()) - STOPWORDS:
            return ""
        return (
            f'"{answer}" is not one of the names the question offers: answer with one of '
            "them, or abstain."
        )
    if first in _AUXILIARIES and words not in (["yes"], ["no"]):
        return f'The question asks yes or no, not "{answer}": answer "yes" or "no".'
    return ""


def restates_question(question: str, answer: str, also: frozenset[str] = frozenset()) -> bool:
    """An "answer" that only repeats what the question names (a small model answering
    "Avery Brundage" to "Who leads the organisation Avery Brundage belonged to?"), or
    that and words from ``also``; a question offering a choice ("A or B?") is answered
    from its own words."""
    if _CHOICE.search(question):
        return False
    words = normalize_answer(answer).split()
    return bool(words) and set(words) <= set(normalize_answer(question).split()) | also


# A broad question asks what a collection says as a whole (GraphRAG's global questions):
# its themes, kinds or recurring points, across documents, or a summary or overview.
# A deep one asks for one fact, however many hops away. Measured on the dev questions
# of the multi-hop sets and on broad questions written for a manual (docs/broad.md).
_BROAD = re.compile(
    r"\b(?:main|key|major|common|recurring|overall|central|principal|most important)\s+"
    r"(?:themes|topics|ideas|points|concerns|risks|trends|patterns|approaches|ways"
    r"|lessons|issues|differences|categories|kinds|types|areas|recommendations|pitfalls"
    r"|trade-?offs|mechanisms|tools|options|practices|features)\b"
    r"|\bacross (?:the|these|all|this|its|different|many|several|various)\b"
    r"|\b(?:summari[sz]e|summary of|overview|in general|big picture|as a whole|throughout"
    r" the)\b"
    r"|\bwhat (?:kinds|sorts|types) of\b"
    r"|\b(?:what|which) (?:are )?(?:the )?(?:other |main |different |new )?(?:tools"
    r"|facilities|mechanisms|options|ways|techniques|limitations|caveats|pitfalls|risks"
    r"|alternatives|strategies"
    r"|approaches|methods|practices|recommendations)\b"
    r"|\bhow (?:has|have) .{3,80} (?:evolved|changed)\b"
    r"|\([^()]*,[^()]*,[^()]*\)"  # a list of three or more things to cover
    r"|\b(?:documents?|documentation|docs|corpus|collection|manual|texts|articles)\s+"
    r"(?:say|says|cover|covers|discuss|discusses|describe|describes|recommend|recommends"
    r"|advise|advises)\b",
    re.IGNORECASE,
)


def broad_question(question: str) -> bool:
    """Whether ``question`` asks about the collection as a whole ("What are the main
    themes of these documents?") rather than for a fact ("Who directed Free Guy?")."""
    return bool(_BROAD.search(question))


# The words a question about the collection as a whole is made of ("What are the main
# themes across these documents?"): its form, and names for the collection and its parts.
_COLLECTION = content_stems(
    "main key major common recurring overall central principal important themes topics "
    "ideas points concerns trends patterns issues areas categories kinds types sorts "
    "subjects documents documentation docs corpus collection texts articles pages manual "
    "files sources across summarise summarize summary overview general big picture whole "
    "discuss describe cover say mention talk contain these this those give tell list various "
    "different"
)


def whole_collection(question: str) -> bool:
    """Whether a broad ``question`` is about the whole collection ("What are the main
    themes of these documents?": no word but its form and the collection's names) rather
    than one subject across it ("What are the main risks of untrusted input?")."""
    return broad_question(question) and not content_stems(question) - _COLLECTION
