"""Finding a question's hops in its own words (self-ask without asking the model to
decompose): the question that remains once a bridge is answered, and the first hop."""

from __future__ import annotations

import re

from graphmind.ask.rules.evidence import says
from graphmind.ask.rules.question import QUOTES, question_entities, restates_question
from graphmind.ask.rules.text import content_stem, content_stems, states
from graphmind.core.decision import Candidate
from graphmind.core.scoring import normalize_answer

_DETERMINERS = frozenset(["the", "a", "an"])
# heads of descriptions that name a time, which a name cannot replace ("the end of WW2")
_TIMES = frozenset(
    ["end", "start", "beginning", "time", "middle", "height", "year", "day", "date", "era"]
)
# heads of descriptions that are the thing itself ("the name of the 1999 film ..."): the
# question's own target, not a hop before it
_ITSELF = frozenset(["name", "title"])
_RELATIVE = frozenset(["who", "whom", "whose", "which", "that", "where", "when"])
_LINKS = _RELATIVE | frozenset(
    ["of", "in", "on", "at", "by", "for", "from", "with", "behind", "to"]
)


_CLAUSE_TAIL = 3  # words after the name that still end a relative clause
_CONNECTORS = 2  # words without a stem ("in", "how", "a") that a name runs over
_TOKEN = re.compile(r"\S+")
_OWNED = 3  # words after a possessive name that a description keeps
_POSSESSIVE = re.compile(r"['\u2019]s\W*$")
FIRST_HOP = "What is the name of "


# people a possessive name owns, through whom a question asks ("When did Margaret
# Verney's father die?"), and the words before them ("maternal grandfather")
OWNED_PEOPLE = frozenset(
    [
        "father",
        "mother",
        "parent",
        "husband",
        "wife",
        "spouse",
        "partner",
        "son",
        "daughter",
        "child",
        "brother",
        "sister",
        "sibling",
        "grandfather",
        "grandmother",
        "grandson",
        "granddaughter",
        "uncle",
        "aunt",
        "nephew",
        "niece",
        "cousin",
        "stepfather",
        "stepmother",
        "father-in-law",
        "mother-in-law",
        "director",
        "composer",
        "performer",
        "author",
        "founder",
        "creator",
        "producer",
        "writer",
        "singer",
    ]
)
_KIN_MODIFIERS = frozenset(["paternal", "maternal"])
OWNER_TAIL = re.compile(r"(['\u2019]s)?\W*$")  # "father's" and "father?" are "father"


def _name_end(stems: list[str], at: int, names: set[str]) -> int:
    """Where the name that starts at token ``at`` ends, over connectors ("Barney in How I
    Met Your Mother", "Ruby Loftus Screwing a Breech Ring")."""
    end = at
    while True:
        k = end + 1
        while k < len(stems) and not stems[k] and k - end <= _CONNECTORS:
            k += 1
        if k >= len(stems) or stems[k] not in names:
            return end
        end = k


def _read_question(question: str) -> tuple[set[str], list[re.Match[str]], list[str], list[str]]:
    """What the hop rules read in a question: the stems of the names it names, its
    tokens, their words and each word's stem."""
    names = {s for e in question_entities(question) for s in content_stems(e)}
    tokens = list(_TOKEN.finditer(question))
    words = [t.group(0) for t in tokens]
    return names, tokens, words, [content_stem(w) for w in words]


def bridge_hop(question: str, answer: str, cited: list[Candidate]) -> str:
    """The question that remains when the answer is a bridge (self-ask, without asking the
    model to decompose, which a 1.5B cannot): the question with a description replaced by
    the answer. "What is the seat of the county where Van Hook Township is located?",
    answered "Mountrail County" from the passage titled "Van Hook Township", becomes
    "What is the seat of Mountrail County?".

    The description is a noun phrase of the question ("the county ..."; a lower-case word
    after the article) that runs, over a link word ("of", "that", "where"; not "the song
    The Story", where the name is the thing itself), to a name which a cited passage
    stating the answer says, then on while the cited passages say its words; what the
    question asks besides it must still hold a word that the passages linking the name
    to the answer do not say ("seat"; "chairman" may come from another cited passage,
    about the answer's own chairman): the answer cannot answer it yet. "" when there is
    no such phrase (the answer is final, as far as the evidence can tell)."""
    stating = [c for c in cited if states(answer, [says(c)])]
    if not answer or not stating or restates_question(question, answer):
        return ""
    if re.search(r"\d", answer):  # a date or a number is not a bridge: "What is 1724 father?"
        return ""
    said_by = {c.id: content_stems(says(c)) for c in cited}
    texts = [f" {normalize_answer(says(c))} " for c in cited]
    about = set().union(*(said_by[c.id] for c in stating))
    said = set().union(*said_by.values())
    names, tokens, words, stems = _read_question(question)
    for anchor in (j for j, s in enumerate(stems) if s in names and s in about):
        start = _description_start(words, anchor)
        if start is None:
            continue
        end = _description_end(words, stems, names, start, anchor, said, texts)
        # the passages that link the name to the answer must leave the rest unsaid
        linking = set().union(*(said_by[c.id] for c in stating if stems[anchor] in said_by[c.id]))
        if any(s and s not in linking for s in stems[:start] + stems[end + 1 :]):
            rest = question[tokens[end].end() :]
            if end == len(words) - 1 and words[end][-1:] in "?.!":
                rest = words[end][-1]
            return f"{question[: tokens[start].start()]}{answer}{rest}"
    return ""


def _description_start(words: list[str], anchor: int) -> int | None:
    """Where the description that runs to the name at ``anchor`` starts: the innermost
    noun phrase ("the county ...") before it, over a link word (not "the song The Story",
    where the name is the thing itself, nor "the name of ...", which is the thing); None
    when there is none. Words inside a quoted title are the title's: "the book titled
    "... Targeted by the Clinton Machine"" has no link to "Clinton"."""
    quoted = _in_quotes(words)
    starts = [
        i
        for i in range(anchor - 1)
        if i not in quoted
        and words[i].lower() in _DETERMINERS
        and words[i + 1][:1].islower()
        and normalize_answer(words[i + 1]) not in _TIMES
    ]
    # not an indefinite phrase inside another's clause ("the governor who passed a law
    # in honor of Donda West": the governor is the description, not the law)
    starts = [
        i
        for i in starts
        if words[i].lower() == "the"
        or not any(w.lower() in _RELATIVE for w in words[starts[0] : i])
    ]
    if (
        not starts
        or words[starts[-1] + 1].lower() in _ITSELF
        or not any(words[i] in _LINKS for i in range(starts[-1] + 2, anchor) if i not in quoted)
    ):
        return None
    return starts[-1]


def _in_quotes(words: list[str]) -> set[int]:
    """The positions of the words that lie inside quotation marks, the marks' own included."""
    inside: set[int] = set()
    open_ = False
    for i, word in enumerate(words):
        marks = sum(word.count(m) for m in QUOTES)
        if open_ or (marks and word[:1] in QUOTES):
            inside.add(i)
        if marks % 2:
            open_ = not open_
    return inside


def _description_end(
    words: list[str],
    stems: list[str],
    names: set[str],
    start: int,
    anchor: int,
    said: set[str] | None = None,
    texts: list[str] | None = None,
) -> int:
    """Where the description that starts at ``start`` and names the name at ``anchor``
    ends: after the name, or after its relative clause's last words ("... where Van Hook
    Township is located"), read with the passages' words when there are passages."""
    end = _name_end(stems, anchor, names)
    if texts and _POSSESSIVE.search(words[end]):  # "Study in Brown's record label", as
        # the passages write it (not "Breakfast at Tiffany's win")
        owner = end
        while (
            end + 1 < len(words)
            and end - owner < _OWNED
            and words[end + 1][:1].islower()
            and _written(words[end : end + 2], texts)
        ):
            end += 1
    relative = [i for i in range(start + 1, anchor) if words[i].lower() in _RELATIVE]
    verb_first = relative and any(s and s not in names for s in stems[relative[-1] + 1 : anchor])
    if verb_first:
        # "the team that uses Dick's Sporting Goods Park play for": the clause ends with
        # the name ("play for" is the question's), which runs on over a word the passages
        # write after it ("Miracle on 34th street")
        while end + 1 < len(words) and texts and _written(words[end : end + 2], texts):
            end += 1
    elif relative:
        # "... that Craig Westcarr played for": the clause's words the passages say
        while end + 1 < len(words) and said and (not stems[end + 1] or stems[end + 1] in said):
            end += 1
        tail = words[end + 1 :]
        if len(tail) <= _CLAUSE_TAIL and not any(w[:1].isupper() for w in tail):
            end = len(words) - 1  # "... where Van Hook Township is located"
    return end


# how or why something is, or what it does or means: what one page explains ("How do I
# copy an object?", "Why are strings immutable?", "What does the GIL do?")
_EXPLANATION = re.compile(
    r"^\s*(?:why\b|how\s+(?:do|does|did|can|could|should|would|is|are|was|were|to)\b"
    r"|what\s+does\b.*\b(?:do|mean)\W*$)",
    re.IGNORECASE,
)


def asks_explanation(question: str) -> bool:
    """Whether ``question`` asks for an explanation of one thing, with no description to
    follow to a name first (``first_hop``): "How do I read a file line by line?", not "Why
    did Roncalli leave the place where the composer of Al gran sole carico d'amore
    worked?" (a chain of facts in an explanation's form). Such a question's answer is on
    the pages nearest it, and the graph walk's neighbours only distract a small reader
    (docs/full-answers.md)."""
    return bool(_EXPLANATION.search(question)) and not first_hop(question)


def first_hop(question: str) -> str:
    """The question's first hop, asked before the rest when the answer to the whole was
    no bridge (self-ask's first step, found in the question's words, not by the model):
    "Who is the sibling of the actress who played Susan Walker in Miracle on 34th
    Street?" asks first "What is the name of the actress who played Susan Walker in
    Miracle on 34th Street?". "" when no description runs to a name."""
    owned = owned_hop(question)
    if owned:
        return owned
    names, tokens, words, stems = _read_question(question)
    for anchor in (j for j, s in enumerate(stems) if s in names):
        start = _description_start(words, anchor)
        if start is None:
            continue
        end = _description_end(words, stems, names, start, anchor)
        if _POSSESSIVE.search(words[end]):
            return ""  # "the company that Study in Brown's ...": what it owns is unknown
        phrase = question[tokens[start].start() : tokens[end].end()].rstrip("?.!, ")
        return f"{FIRST_HOP}{phrase}?"
    return ""


def owned_hop(question: str) -> str:
    """The first hop of a question about someone a name owns: "What is the name of
    Margaret Verney's father?" for "When did Margaret Verney's father die?" (2Wiki's
    usual form, which ``first_hop``'s descriptions do not cover); "" when the question
    asks for no one so owned, or for no more than that person ("Who is Margaret Verney's
    father?")."""
    names, tokens, words, stems = _read_question(question)
    for anchor in (j for j, s in enumerate(stems) if s in names):
        end = _name_end(stems, anchor, names)
        if not _POSSESSIVE.search(words[end]):
            continue
        k = end + 1
        while k < len(words) and words[k].lower() in _KIN_MODIFIERS:
            k += 1
        person = OWNER_TAIL.sub("", words[k]) if k < len(words) else ""
        if person.lower() not in OWNED_PEOPLE:
            return ""
        phrase = question[tokens[anchor].start() : tokens[k].start()] + person
        if not content_stems(question.replace(phrase, " ", 1)) - names:
            return ""
        return f"{FIRST_HOP}{phrase}?"
    return ""


def _written(words: list[str], texts: list[str]) -> bool:
    """Whether a passage (normalised, space-padded) writes these words in a row."""
    phrase = normalize_answer(" ".join(words))
    return bool(phrase) and any(f" {phrase} " in t for t in texts)
