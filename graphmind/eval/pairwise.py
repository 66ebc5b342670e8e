"""A pairwise judge that cancels its own position bias: both orders, read as odds.

A model asked "which answer is better, 1 or 2?" leans toward one position whatever stands
there; the offline 1.5B named answer 2 in 23 of 24 judgements of broad questions. Asking
in both orders and counting wins cancels that lean only to a coin flip: every pair comes
out one win each. The odds cancel it and keep the signal. With ``d1`` the judge's log-odds
of "1" over "2" when A is answer 1 and ``d2`` the same when A is answer 2, the position
lean ``b`` adds to both and A's merit ``s`` enters with opposite signs (``d1 = s + b``,
``d2 = -s + b``), so ``s = (d1 - d2) / 2`` and ``b = (d1 + d2) / 2`` (the balanced
position calibration of Wang et al., "Large Language Models are not Fair Evaluators",
2023, on log-odds). ``sigmoid(s)`` is the judge's probability that A is better; a provider
that cannot read log-probabilities falls back on the two verdicts (a win, a tie or a loss
per order).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, WithJsonSchema

from graphmind.llm.base import Message
from graphmind.llm.client import LLM
from graphmind.llm.odds import Odds

FIRST, SECOND = "1", "2"
MARGIN = 0.5
"""|advantage| in nats below which a pair is called a tie (sigmoid(0.5) = 0.62)."""
RESAMPLES = 2000  # the bootstrap's, over pairs
Z95 = 1.96

Outcome = Literal["a", "b", "tie"]


def choice(value: Any) -> Any:
    """A judge's word for an answer as "1", "2" or "tie" ("Answer 2", 1, "Tie"); anything
    else passes through (and fails validation)."""
    text = str(value).strip().lower()
    one, two = FIRST in text, SECOND in text
    if one != two:
        return FIRST if one else SECOND
    if any(word in text for word in ("tie", "both", "equal", "neither")):
        return "tie"
    return text


Choice = Annotated[
    Literal["1", "2", "tie"],
    BeforeValidator(choice),
    WithJsonSchema({"type": "string", "enum": [FIRST, SECOND]}),
]
"""A judge's field: the schema offers "1" or "2" (the judge must choose, as LightRAG's
does; the odds say how close it was); a "tie" said anyway is read."""


@dataclass(frozen=True)
class Judgement:
    """One criterion of one pair, judged with A as answer 1 and again as answer 2."""

    a_first: str
    """What the judge said with A as answer 1: "1", "2" or "tie"."""
    a_second: str
    """What it said with A as answer 2."""
    advantage: float | None = None
    """A's log-odds of being better, the position lean cancelled; None without odds."""
    lean: float | None = None
    """The judge's log-odds toward answer 1 whatever stood there; None without odds."""

    @property
    def said(self) -> float:
        """A's score from the two verdicts alone: 1 both orders for A, 0 both for B."""
        return (_score(self.a_first, FIRST) + _score(self.a_second, SECOND)) / 2

    @property
    def p_a(self) -> float:
        """The judge's probability that A is better (the verdicts' score without odds)."""
        return self.said if self.advantage is None else 1 / (1 + math.exp(-self.advantage))

    def outcome(self, margin: float = MARGIN) -> Outcome:
        """A's win, B's, or a tie: by the odds within ``margin``, else by the verdicts."""
        if self.advantage is not None:
            if abs(self.advantage) < margin:
                return "tie"
            return "a" if self.advantage > 0 else "b"
        return "a" if self.said > 0.5 else "b" if self.said < 0.5 else "tie"

    @property
    def orders_agree(self) -> bool:
        """Whether the two verdicts name the same winner (the judge's noise)."""
        return _winner(self.a_first, FIRST) == _winner(self.a_second, SECOND)

    def as_dict(self) -> dict[str, Any]:
        return {
            "a_first": self.a_first,
            "a_second": self.a_second,
            "advantage": self.advantage,
            "lean": self.lean,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Judgement:
        return cls(data["a_first"], data["a_second"], data.get("advantage"), data.get("lean"))


def pair_prompt(
    system: str, head: str, limit: int | None = None
) -> Callable[[str, str], list[Message]]:
    """A judge's messages for answer 1 and answer 2 after ``head`` (the question and what
    else the judge reads), each answer cut at ``limit`` characters."""

    def messages(first: str, second: str) -> list[Message]:
        return [
            {"role": "system", "content": system},
            {
                "role": "user",
                "content": f"{head}\n\nAnswer 1: {first[:limit]}\n\nAnswer 2: {second[:limit]}",
            },
        ]

    return messages


def judge_pair[T: BaseModel](
    llm: LLM,
    task: str,
    messages: Callable[[str, str], list[Message]],
    output: type[T],
    criteria: Sequence[str],
    a: str,
    b: str,
    *,
    max_tokens: int,
) -> dict[str, Judgement]:
    """A against B on each criterion: ``messages(first, second)`` asks the judge, whose
    ``output`` has one field per criterion valued "1" or "2" (or "tie")."""
    request = {criterion: [FIRST, SECOND] for criterion in criteria}
    said_ab, odds_ab = llm.structured_odds(
        task, messages(a, b), output, request, max_tokens=max_tokens
    )
    said_ba, odds_ba = llm.structured_odds(
        task, messages(b, a), output, request, max_tokens=max_tokens
    )
    out: dict[str, Judgement] = {}
    for criterion in criteria:
        said = str(getattr(said_ab, criterion)), str(getattr(said_ba, criterion))
        d1, d2 = _log_odds(odds_ab, criterion), _log_odds(odds_ba, criterion)
        if d1 is None or d2 is None:
            out[criterion] = Judgement(*said)
        else:
            out[criterion] = Judgement(*said, advantage=(d1 - d2) / 2, lean=(d1 + d2) / 2)
    return out


def _log_odds(odds: Odds | None, criterion: str) -> float | None:
    """log P("1") - log P("2") for one criterion, capped at ±20 nats (a certain judge)."""
    pair = (odds or {}).get(criterion)
    if not pair or FIRST not in pair or SECOND not in pair:
        return None
    return max(-20.0, min(20.0, pair[FIRST] - pair[SECOND]))


def win_rate(judgements: Sequence[Judgement], margin: float = MARGIN) -> dict[str, Any]:
    """A's numbers over pairs: the mean probability that A is better (``win_rate``) with
    a bootstrap 95% interval; wins, ties and losses by the odds and Wilson's interval of
    that share (a tie half); what the verdicts alone give; how often the two orders agree
    and how much the judge leaned on position against how much on the answers (mean
    absolute log-odds)."""
    n = len(judgements)
    if not n:
        return {"pairs": 0}
    outcomes = [j.outcome(margin) for j in judgements]
    wins, ties = outcomes.count("a"), outcomes.count("tie")
    decided = (wins + ties / 2) / n
    with_odds = [j for j in judgements if j.advantage is not None and j.lean is not None]
    return {
        "pairs": n,
        "win_rate": round(sum(j.p_a for j in judgements) / n, 3),
        "bootstrap_95": bootstrap([j.p_a for j in judgements]),
        "wins_ties_losses": [wins, ties, n - wins - ties],
        "decided_rate": round(decided, 3),
        "wilson_95": wilson(decided, n),
        "verdicts_rate": round(sum(j.said for j in judgements) / n, 3),
        "orders_agree": round(sum(j.orders_agree for j in judgements) / n, 3),
        "with_odds": len(with_odds),
        "mean_abs_advantage": _mean_abs([j.advantage for j in with_odds]),
        "mean_abs_lean": _mean_abs([j.lean for j in with_odds]),
    }


def bootstrap(values: Sequence[float], resamples: int = RESAMPLES, seed: int = 0) -> list[float]:
    """The 95% percentile interval of the mean, resampling ``values`` with replacement;
    empty for no values."""
    if not values:
        return []
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(resamples))
    return [
        round(means[round(0.025 * (resamples - 1))], 3),
        round(means[round(0.975 * (resamples - 1))], 3),
    ]


def wilson(rate: float, n: int, z: float = Z95) -> list[float]:
    """Wilson's 95% interval for a share ``rate`` of ``n`` (a tie counted half, as if it
    were a share of wins); empty for none."""
    if n == 0:
        return []
    denominator = 1 + z * z / n
    centre = (rate + z * z / (2 * n)) / denominator
    half = z * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / denominator
    return [round(max(0.0, centre - half), 3), round(min(1.0, centre + half), 3)]


def _score(said: str, a_was: str) -> float:
    return 1.0 if said == a_was else 0.5 if said == "tie" else 0.0


def _winner(said: str, a_was: str) -> str:
    return "tie" if said == "tie" else "a" if said == a_was else "b"


def _mean_abs(values: Sequence[float | None]) -> float | None:
    kept = [abs(v) for v in values if v is not None]
    return round(sum(kept) / len(kept), 3) if kept else None
