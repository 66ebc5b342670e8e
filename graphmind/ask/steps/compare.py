"""Compare: a two-option comparison answered by asking each option a question of its own
(the loop's rounds, graph walk and hops included) and deciding in code (``rules.compare``
for dates, ``rules.alike`` for the same country and lifespans, ``rules.amount`` for
measures).

"Which film has the director who died later, Majhli Didi or Dream of the Rhine?" asks
"When did the director of Majhli Didi die?" and "When did the director of Dream of the
Rhine die?"; 27 August 2006 is later than 1 August 1942, so Majhli Didi. "Are the
directors of films A and B both from the same country?" asks "What nationality is the
director of A?" for each; "Who lived longer, A or B?" asks when each was born and
died. The answer rests on the passages each answer was read from; an answer that no cited
passage about its owner states, or answers that do not decide, leave the question to the
loop as usual.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from graphmind.ask.models import OneCountry
from graphmind.ask.options import SAME_MAX_TOKENS
from graphmind.ask.prompts import same_messages
from graphmind.ask.rules.alike import NO, YES, Asks, Lifespan, SameCountry, alike, longer
from graphmind.ask.rules.amount import Amount, larger, numbers_in, parse_amount, with_unit
from graphmind.ask.rules.compare import Comparison, parse_date, pick
from graphmind.ask.rules.evidence import says
from graphmind.ask.rules.text import capitalised, titled
from graphmind.ask.state import AskState, Tools
from graphmind.core.decision import Candidate, Round, Statement


@dataclass
class Dated:
    """One option's answer (a date, a country), as the loop answered the question that
    asks it."""

    option: str
    state: AskState  # the sub-question's run (its question, rounds): they go into the decision
    chosen: Round | None
    answer: str
    cited: list[Candidate]

    @property
    def whose(self) -> str:
        """Whose date it is: the first hop's answer ("Hrishikesh Mukherjee" for the
        director of Majhli Didi) when one was asked, else the option."""
        rounds = zip(self.state.rounds, self.state.asked, strict=True)
        named = [r.judgement.draft_answer for r, q in rounds if self.state.first == q]
        return next((n for n in named if n), self.option)

    @property
    def stated(self) -> bool:
        """Whether the answer is a date whose year a cited passage about whose date it is
        states: one whose title names them (a film's page gives the film's year, which
        the 1.5B gave as its director's birth)."""
        date = parse_date(self.answer)
        if date is None:
            return False
        year = str(abs(date[0]))
        return any(year in says(c) and titled(c.title, self.whose) for c in self.cited)

    @property
    def measured(self) -> bool:
        """Whether the answer is a number a cited passage about its option writes (8051
        for "8,051 metres"; the unit may be converted, the number as written may not)."""
        found = parse_amount(self.answer)
        return found is not None and any(
            found.written in numbers_in(says(c)) and titled(c.title, self.whose) for c in self.cited
        )

    def reading(self, asks: Asks) -> str:
        """The answer as the comparison reads it: a measure with the unit its cited
        passages write it in when the answer gave none."""
        if isinstance(asks, Amount):
            return with_unit(self.answer, [says(c) for c in self.cited])
        return self.answer

    def read(self, asks: Asks) -> bool:
        """Whether the answer is one a comparison may be decided by (see ``stated``,
        ``named``, ``measured``)."""
        if isinstance(asks, SameCountry):
            return self.named
        return self.measured if isinstance(asks, Amount) else self.stated

    @property
    def named(self) -> bool:
        """Whether the answer is a short name (a country), not yes or no, read from a
        cited passage about whose it is (a country is often written as its people's
        adjective: "Italian", so the name itself need not be in it)."""
        words = self.answer.split()
        if not 0 < len(words) <= 5 or self.answer.lower().strip(" .") in (YES, NO):
            return False
        return any(titled(c.title, self.whose) for c in self.cited)


@dataclass
class Picked:
    """What a comparison decided (an option, or yes/no) and the answers it was decided
    by, in the options' order."""

    asks: Asks
    winner: str
    dated: list[Dated]
    answers: list[str]  # the dated answers as the comparison read them (``Dated.reading``)

    def cited(self) -> list[Candidate]:
        """The passages the dates were read from, once each, in the options' order."""
        seen: dict[str, Candidate] = {}
        for d in self.dated:
            for c in d.cited:
                seen.setdefault(c.id, c)
        return list(seen.values())


AskOne = Callable[[str, str], tuple[AskState, Round | None, str, list[Candidate]]]
SameName = Callable[[str, str], bool]


def compare(state: AskState, asks: Asks, ask: AskOne, same: SameName) -> Picked | None:
    """Ask each option's questions (``ask`` runs the loop on a question from its first
    hop, if any, and returns its run, chosen round, answer and cited passages) and
    decide; ``same`` says whether two countries written differently are one ("Italy",
    "Italian"). None, and ``state`` untouched, when an answer is not stated or the
    answers do not decide; else the sub-questions' rounds, renumbered, become the
    question's."""
    dated: list[Dated] = []
    for option in asks.options:
        for question, first in asks.questions(option):
            dated.append(Dated(option, *ask(question, first)))
            if not dated[-1].read(asks):
                return None  # the other option's answer cannot decide alone
    answers = [d.reading(asks) for d in dated]
    winner = decide(asks, answers, same)
    if winner is None:
        return None
    for d in dated:
        fold(state, d.state)
    return Picked(asks, winner, dated, answers)


def decide(asks: Asks, answers: list[str], same: SameName) -> str | None:
    """The comparison's answer from the options' answers, in order (for a lifespan: the
    first option's birth and death, then the second's)."""
    if isinstance(asks, Comparison):
        return pick(asks, (answers[0], answers[1]))
    if isinstance(asks, Lifespan):
        return longer(asks, ((answers[0], answers[1]), (answers[2], answers[3])))
    if isinstance(asks, Amount):
        return larger(asks, (answers[0], answers[1]))
    one = alike(answers[0], answers[1])
    return YES if (same(answers[0], answers[1]) if one is None else one) else NO


def one_country(tools: Tools, state: AskState, first: str, second: str) -> bool:
    """The model's word on whether two countries, written differently, are one."""
    with state.timed("llm"):
        out = tools.llm.structured(
            "same", same_messages(first, second), OneCountry, max_tokens=SAME_MAX_TOKENS
        )
    return out.same


def fold(state: AskState, sub: AskState) -> None:
    """The sub-question's rounds, cues, searches and times added to the question's."""
    for r in sub.rounds:
        r.number = len(state.rounds) + 1
        state.rounds.append(r)
    state.asked.extend(sub.asked)
    state.checks.extend(sub.checks)
    state.cues.extend(sub.cues)
    state.queries.extend(q for q in sub.queries if q not in state.queries)
    state.fused |= sub.fused
    state.retrieve_ms += sub.retrieve_ms
    state.store_ms += sub.store_ms
    state.llm_ms += sub.llm_ms


def statements(picked: Picked) -> list[Statement]:
    """The full answer: each option's answers on the passages they were read from, then
    what decides."""
    asks, dated, answers = picked.asks, picked.dated, picked.answers
    if isinstance(asks, SameCountry):
        first, second = answers
        said = [Statement(asks.says(d.option, d.answer), ids(d.cited)) for d in dated]
        kind = "the same country" if picked.winner == YES else "different countries"
        return [*said, concluded(picked, f"{first} and {second} are {kind}")]
    if isinstance(asks, Amount):
        said = [
            Statement(asks.says(d.option, r), ids(d.cited))
            for d, r in zip(dated, answers, strict=True)
        ]
        first, second = answers
        more = (picked.winner == asks.options[0]) == asks.more
        return [*said, concluded(picked, f"{first} is {'more' if more else 'less'} than {second}")]
    if isinstance(asks, Lifespan):
        said = [
            Statement(
                f"{capitalised(b.option)} was born {b.answer} and died {d.answer}.",
                ids(b.cited + d.cited),
            )
            for b, d in (dated[:2], dated[2:])
        ]
        lived = "longer" if asks.longer else "shorter"
        return [*said, concluded(picked, f"{picked.winner} lived {lived}")]
    said = []
    for d in dated:
        event = {"born": "was born", "died": "died"}.get(asks.event, f"was {asks.event}")
        said.append(
            Statement(f"{capitalised(asks.subject(d.option))} {event} {d.answer}.", ids(d.cited))
        )
    first, second = answers
    # the first date is the earlier one when it won an "earlier" question or lost a "later"
    earlier = (picked.winner == asks.options[0]) == (asks.direction == "earlier")
    return [
        *said,
        concluded(picked, f"{first} is {'earlier' if earlier else 'later'} than {second}"),
    ]


def concluded(picked: Picked, reason: str) -> Statement:
    """The full answer's last sentence: what decides, so the answer, on every passage
    the answers were read from."""
    return Statement(f"{reason}, so the answer is {picked.winner}.", ids(picked.cited()))


def ids(cited: list[Candidate]) -> list[str]:
    """The chunk ids of ``cited``, once each."""
    return list(dict.fromkeys(c.id for c in cited))
