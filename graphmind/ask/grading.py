"""A round's grade from its answer and citations, and which round's answer is kept."""

from __future__ import annotations

from graphmind.ask.models import Answer, Check
from graphmind.ask.rules.evidence import cited_passages, cited_texts, linking, says, supporting
from graphmind.ask.rules.hops import bridge_hop
from graphmind.ask.rules.question import question_entities, restates_question
from graphmind.ask.rules.text import GROUNDED, grounding, restates, states
from graphmind.core.decision import (
    Candidate,
    EntityCoverage,
    Judgement,
    Round,
    Sufficiency,
    Verdict,
)

ABSTAIN_ANSWER = "Not found in the corpus."
REASON_CHARS = 300  # a verdict's reason, cut


def grade(question: str, found: list[Candidate], reply: Answer, check: Check | None) -> Judgement:
    """A round's judgement from its answer, its citations and the answer's check.

    Cited passages are used, the others rejected. The confidence is how much of the
    answer the best cited passage states (its grounding); the grade is EXACT when one cited
    passage states it, INFERRABLE when it rests on several, PARTIAL when the check found
    a missing link or the citations do not state the answer, NONE without an answer. The
    coverage says which entities the question names the cited passages mention.
    """
    answer = "" if reply.abstain else reply.answer.strip()
    cited = [n for n in reply.citations if 1 <= n <= len(found)]
    share = 1.0 / len(cited) if cited else 0.0
    verdicts = [
        Verdict(
            ref=n,
            verdict="used",
            reason=f"cited for the answer {answer!r}"[:REASON_CHARS],
            confidence_delta=round(share, 2),
        )
        if n in cited
        else Verdict(
            ref=n,
            verdict="rejected",
            reason="not cited for the answer" if answer else "no answer in it",
        )
        for n in range(1, len(found) + 1)
    ]
    each = [grounding(answer, [found[n - 1].text]) for n in cited] if answer else []
    confidence = max(each, default=0.0)
    stated = [g for g in each if g >= GROUNDED]
    if not answer:
        sufficiency = Sufficiency.PARTIAL if cited else Sufficiency.NONE
    elif (check is not None and not check.complete) or confidence < GROUNDED:
        sufficiency = Sufficiency.PARTIAL
    elif stated and len(cited) == 1:
        sufficiency = Sufficiency.EXACT
    else:
        sufficiency = Sufficiency.INFERRABLE
    missing = "" if check is None or check.complete else check.missing.strip()
    query = "" if check is None else check.query.strip()  # kept for an unsupported answer
    if not answer and not query:
        query = missing  # with nothing answered, the missing fact is the search
    cue = f"Answer {answer!r} from passages {cited}" if answer else ""
    said = [says(found[n - 1]) for n in cited]
    coverage = [
        EntityCoverage(entity=e, covered=grounding(e, said) >= GROUNDED)
        for e in question_entities(question)
    ]
    return Judgement(
        verdicts=verdicts,
        draft_answer=answer,
        sufficiency=sufficiency,
        confidence=confidence,
        coverage=coverage,
        missing=missing,
        probes=[query] if query else [],
        cue=cue,
    )


def shown_grade(question: str, j: Judgement, answer: str) -> Sufficiency:
    """The grade a decision shows: whether its cited passages support the answer shown.
    A check's "missing" that only restates the question and the answer ("Otto Hahn" for
    the answer "Otto Hahn") does not lower an answer a cited passage states (EXACT with
    one cited passage, INFERRABLE with several); an answer that only restates the
    question ("Global interpreter lock" to "What does the global interpreter lock do?")
    is PARTIAL at most. The rounds keep the grades they had (the loop went on from them)."""
    grade = j.sufficiency
    stated = bool(answer) and j.confidence >= GROUNDED
    if (
        grade is Sufficiency.PARTIAL
        and stated
        and j.missing
        and restates(j.missing, question, answer)
    ):
        used = sum(1 for v in j.verdicts if v.verdict == "used")
        grade = Sufficiency.EXACT if used == 1 else Sufficiency.INFERRABLE
    if grade in (Sufficiency.EXACT, Sufficiency.INFERRABLE) and restates_question(question, answer):
        grade = Sufficiency.PARTIAL
    return grade


def grounded(question: str, j: Judgement) -> bool:
    """Whether a round's answer is supported: a cited passage states it, and it is not
    just a name from the question."""
    return (
        bool(j.draft_answer)
        and j.confidence >= GROUNDED
        and not restates_question(question, j.draft_answer)
    )


def better(question: str, new: Round, old: Round, asked: str = "") -> bool:
    """Whether a later round's answer replaces the one kept: it is supported (and, when
    the round asked a next hop's question, not a name from that question), and the kept
    one is not, or it is the same answer (its grade and citations are the later ones), or
    it builds on it (a passage it cites says the kept answer word for word: the kept
    answer was the bridge to this one, as in a two-hop question). A next hop's question
    names the kept answer itself: its answer replaces it unless it went back, not on: the
    hop's answer is itself a bridge of the question (``bridge_hop``), said by a kept
    passage that links the question to the kept answer (it names what the question
    names). "Paul Bettany" went back from "Jennifer Connelly" for "the spouse of the actor
    that plays Vision"; "Brian Moynihan" (said beside the passage on who bought
    FleetBoston) and "16,801" (the enrollment, said in the passage that links the Miami
    Hurricane to its university) went on."""
    j, kept = new.judgement, old.judgement
    if not grounded(question, j) or (asked and restates_question(asked, j.draft_answer)):
        return False
    if not grounded(question, kept) or j.draft_answer == kept.draft_answer:
        return True  # a supported answer, or the same one confirmed by later evidence
    if asked and asked != question:  # a next hop: its question names the kept answer
        return not bridge_hop(question, j.draft_answer, linking(question, cited_passages(old)))
    return states(kept.draft_answer, cited_texts(new))


def choose(
    question: str, rounds: list[Round], asked: list[str], first: str
) -> tuple[Round | None, str, list[Candidate]]:
    """The first answer given (round 1 saw the naive baseline's passages), replaced by
    a later round's only when that one has better support (see ``better``), else an
    abstention (no round): a weak later round never throws away a supported earlier
    answer. ``asked``: each round's question; ``first``: the first hop's, if one was
    asked. Returns the chosen round, the answer and the passages it cites."""
    # the first hop's round answers a part of the question, not the question
    answered = [
        (r, q)
        for r, q in zip(rounds, asked, strict=True)
        if r.judgement.draft_answer and not (first and q == first)
    ]
    if not answered:
        return None, ABSTAIN_ANSWER, []
    chosen = answered[0][0]
    for r, q in answered[1:]:
        if better(question, r, chosen, q):
            chosen = r
    j = chosen.judgement
    return (
        chosen,
        j.draft_answer,
        cited_passages(chosen) or supporting(chosen.candidates, j.draft_answer),
    )
