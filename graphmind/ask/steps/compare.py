"""Compare: a two-option date comparison answered by asking each option's date as a
question of its own (the loop's rounds, graph walk and hops included) and comparing the
two dates in code (``rules.compare``).

"Which film has the director who died later, Majhli Didi or Dream of the Rhine?" asks
"When did the director of Majhli Didi die?" and "When did the director of Dream of the
Rhine die?"; 27 August 2006 is later than 1 August 1942, so Majhli Didi. The answer rests
on the passages each date was read from; a date that no cited passage about its owner
states, or two dates that cannot be told apart, leave the question to the loop as usual.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from graphmind.ask.rules.compare import Comparison, parse_date, pick
from graphmind.ask.rules.evidence import says
from graphmind.ask.rules.text import titled
from graphmind.ask.state import AskState
from graphmind.core.decision import Candidate, Round, Statement


@dataclass
class Dated:
    """One option's date, as the loop answered the question that asks it."""

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


@dataclass
class Picked:
    """The option a comparison chose and the dates it was chosen by."""

    asks: Comparison
    winner: str
    dated: list[Dated]

    def cited(self) -> list[Candidate]:
        """The passages the dates were read from, once each, in the options' order."""
        seen: dict[str, Candidate] = {}
        for d in self.dated:
            for c in d.cited:
                seen.setdefault(c.id, c)
        return list(seen.values())


AskDate = Callable[[str], tuple[AskState, Round | None, str, list[Candidate]]]


def compare(state: AskState, asks: Comparison, ask_date: AskDate) -> Picked | None:
    """Ask each option's date (``ask_date`` runs the loop on a question and returns its
    run, chosen round, answer and cited passages) and pick the option whose date wins.
    None, and ``state`` untouched, when a date is not stated or the two do not decide;
    else the sub-questions' rounds, renumbered, become the question's."""
    dated: list[Dated] = []
    for option in asks.options:
        dated.append(Dated(option, *ask_date(asks.question(option))))
        if not dated[-1].stated:
            return None  # the other option's date cannot decide alone
    winner = pick(asks, (dated[0].answer, dated[1].answer))
    if winner is None:
        return None
    for d in dated:
        fold(state, d.state)
    return Picked(asks, winner, dated)


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
    """The full answer: each option's date on the passages it was read from, then the
    comparison that decides."""
    asks, said = picked.asks, []
    for d in picked.dated:
        subject = asks.subject(d.option)
        event = {"born": "was born", "died": "died"}.get(asks.event, f"was {asks.event}")
        said.append(
            Statement(f"{subject[:1].upper()}{subject[1:]} {event} {d.answer}.", ids(d.cited))
        )
    first, second = (d.answer for d in picked.dated)
    # the first date is the earlier one when it won an "earlier" question or lost a "later"
    earlier = (picked.winner == asks.options[0]) == (asks.direction == "earlier")
    verdict = f"{first} is {'earlier' if earlier else 'later'} than {second}"
    said.append(Statement(f"{verdict}, so the answer is {picked.winner}.", ids(picked.cited())))
    return said


def ids(cited: list[Candidate]) -> list[str]:
    """The chunk ids of ``cited``, once each."""
    return list(dict.fromkeys(c.id for c in cited))
