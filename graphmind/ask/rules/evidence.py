"""Which passages a round rests on: those it cites, those that state or name something."""

from __future__ import annotations

from graphmind.ask.models import MAX_CITATIONS, Answer
from graphmind.ask.rules.question import question_entities
from graphmind.ask.rules.text import GROUNDED, grounding, states
from graphmind.core.decision import Candidate, Judgement, Round

SUPPORTING = 5  # passages cited for an answer when its round cited none


def says(c: Candidate) -> str:
    """What a passage says: its title and its text."""
    return f"{c.title} {c.text}"


def used_in(found: list[Candidate], j: Judgement) -> list[Candidate]:
    """The candidates a judgement marks used (the passages its answer cites)."""
    return [
        found[v.ref - 1] for v in j.verdicts if v.verdict == "used" and 1 <= v.ref <= len(found)
    ]


def cited_passages(round_: Round) -> list[Candidate]:
    """The passages a round's answer cites (its used candidates)."""
    return used_in(round_.candidates, round_.judgement)


def cited_texts(round_: Round) -> list[str]:
    """What each passage a round's answer cites says."""
    return [says(c) for c in cited_passages(round_)]


def naming(found: list[Candidate], names: list[str]) -> list[Candidate]:
    """The passages a hop's answer call reads: those that name what it asks about (the
    bridge, whose relation the hop asks for: "Home Alone Tonight ... duet with Karen
    Fairchild" for "Luke Bryan"; not "Take Me Home Tonight" by Eddie Money, which a 1.5B
    answered from); all of them when none does."""
    naming = [c for c in found if any(grounding(n, [says(c)]) == 1.0 for n in names)]
    return naming or found


def linking(question: str, passages: list[Candidate]) -> list[Candidate]:
    """The passages that name one of the names the question names (all of them when the
    question names none)."""
    names = question_entities(question)
    if not names:
        return passages
    return [c for c in passages if any(grounding(n, [says(c)]) >= GROUNDED for n in names)]


def recited(reply: Answer, found: list[Candidate]) -> list[int]:
    """A next hop's citations: when none of the cited passages states the answer and
    others do, those others (the 1.5B answered "Andrew Scheer" citing a passage about
    someone else, with the one that says it in front of it)."""
    texts = [says(c) for c in found]
    if not reply.answer or any(states(reply.answer, [texts[n - 1]]) for n in reply.citations):
        return reply.citations
    stating = [n for n, t in enumerate(texts, start=1) if states(reply.answer, [t])]
    return stating[:MAX_CITATIONS] or reply.citations


def supporting(evidence: list[Candidate], answer: str) -> list[Candidate]:
    """The used passages the answer rests on: those stating it (word for word, as
    ``states`` reads it) first, then the others."""
    stating = [c for c in evidence if states(answer, [c.text])]
    return (stating + [c for c in evidence if c not in stating])[:SUPPORTING]
