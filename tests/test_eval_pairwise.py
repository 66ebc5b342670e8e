"""The pairwise judge: its odds cancel a position lean, verdicts stand in without odds,
the win-rate numbers, and odds carried through the LLM client and its cache."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from pydantic import BaseModel

from graphmind.eval.pairwise import (
    Choice,
    Judgement,
    bootstrap,
    judge_pair,
    wilson,
    win_rate,
)
from graphmind.llm.base import Completion, Message
from graphmind.llm.cache import ResponseCache
from graphmind.llm.client import LLM
from graphmind.llm.odds import OddsReader, normalised
from graphmind.llm.scripted import ScriptedProvider


class Better(BaseModel):
    overall: Choice


def messages(first: str, second: str) -> list[Message]:
    return [{"role": "user", "content": f"Answer 1: {first}\nAnswer 2: {second}"}]


def leaning_judge(merit: dict[str, float], lean: float, *, odds: bool = True) -> ScriptedProvider:
    """A judge whose log-odds of "1" over "2" are the merit of answer 1 minus that of
    answer 2, plus ``lean`` toward answer 1 whatever stands there; it says "1" when
    those log-odds are positive (the lean decides close pairs)."""

    def respond(asked: list[Message]) -> Completion:
        text = asked[-1]["content"]
        first, second = (line.split(": ", 1)[1] for line in text.splitlines())
        d = merit[first] - merit[second] + lean
        said = json.dumps({"overall": "1" if d > 0 else "2"})
        p1 = 1 / (1 + math.exp(-d))
        found = {"overall": {"1": math.log(p1), "2": math.log(1 - p1)}} if odds else None
        return Completion(said, 10, 3, "judge", odds=found)

    return ScriptedProvider(respond)


def test_the_odds_cancel_a_lean_the_verdicts_cannot() -> None:
    provider = leaning_judge({"good": 1.0, "poor": 0.0}, lean=2.0)
    llm = LLM(provider, cache=None)

    said = judge_pair(llm, "judge", messages, Better, ["overall"], "good", "poor", max_tokens=8)[
        "overall"
    ]

    assert (said.a_first, said.a_second) == ("1", "1")  # the lean wins both orders
    assert said.said == 0.5 and not said.orders_agree
    assert said.advantage == pytest.approx(1.0) and said.lean == pytest.approx(2.0)
    assert said.p_a == pytest.approx(1 / (1 + math.exp(-1.0)))
    assert said.outcome() == "a"
    assert provider.calls == 2
    assert [m[-1]["content"] for m in provider.requests] == [
        "Answer 1: good\nAnswer 2: poor",
        "Answer 1: poor\nAnswer 2: good",
    ]
    reverse = judge_pair(llm, "judge", messages, Better, ["overall"], "poor", "good", max_tokens=8)
    assert reverse["overall"].advantage == pytest.approx(-1.0)
    assert reverse["overall"].outcome() == "b"


def test_without_odds_the_two_verdicts_decide() -> None:
    llm = LLM(leaning_judge({"good": 3.0, "poor": 0.0}, lean=1.0, odds=False), cache=None)

    said = judge_pair(llm, "judge", messages, Better, ["overall"], "good", "poor", max_tokens=8)[
        "overall"
    ]

    assert said.advantage is None and said.lean is None
    assert (said.a_first, said.a_second) == ("1", "2") and said.orders_agree
    assert said.p_a == said.said == 1.0 and said.outcome() == "a"
    assert Judgement("1", "1").outcome() == "tie"  # the lean alone: one win each


def test_win_rate_over_pairs() -> None:
    pairs = [
        Judgement("1", "2", advantage=2.0, lean=0.1),  # A, clearly
        Judgement("2", "2", advantage=0.2, lean=-1.5),  # too close: a tie
        Judgement("2", "1", advantage=-1.0, lean=0.0),  # B
        Judgement("tie", "2"),  # no odds: 0.75 by the verdicts, A's
    ]
    stats = win_rate(pairs)
    expected = (
        1 / (1 + math.exp(-2.0)) + 1 / (1 + math.exp(-0.2)) + 1 / (1 + math.exp(1.0)) + 0.75
    ) / 4
    assert stats["win_rate"] == round(expected, 3)
    assert stats["wins_ties_losses"] == [2, 1, 1]
    assert stats["decided_rate"] == 0.625 and stats["wilson_95"] == wilson(0.625, 4)
    assert stats["verdicts_rate"] == round((1 + 0.5 + 0 + 0.75) / 4, 3)
    assert stats["orders_agree"] == 0.5  # the first and third pairs
    assert stats["with_odds"] == 3
    assert stats["mean_abs_advantage"] == round((2.0 + 0.2 + 1.0) / 3, 3)
    assert stats["mean_abs_lean"] == round((0.1 + 1.5 + 0.0) / 3, 3)
    low, high = stats["bootstrap_95"]
    assert low < stats["win_rate"] < high
    assert win_rate([]) == {"pairs": 0}
    assert Judgement.from_dict(pairs[1].as_dict()) == pairs[1]


def test_intervals_by_hand() -> None:
    assert wilson(0.5, 4) == [0.15, 0.85]
    assert wilson(1.0, 10) == [0.722, 1.0]
    assert wilson(0.5, 0) == []
    assert bootstrap([1.0, 1.0, 1.0]) == [1.0, 1.0]
    assert bootstrap([0.0, 1.0], resamples=2000) == [0.0, 1.0]  # both ends drawn
    assert bootstrap([]) == []


def test_odds_are_cached_with_the_answer_and_apart_from_it(tmp_path: Path) -> None:
    provider = leaning_judge({"good": 1.0, "poor": 0.0}, lean=0.0)
    llm = LLM(provider, cache=ResponseCache(tmp_path / "cache.db"))
    asked = messages("good", "poor")

    first = llm.structured_odds("judge", asked, Better, {"overall": ["1", "2"]})
    again = llm.structured_odds("judge", asked, Better, {"overall": ["1", "2"]})
    plain = llm.structured("judge", asked, Better)

    assert again == first and first[1] is not None
    assert first[1]["overall"]["1"] == pytest.approx(math.log(1 / (1 + math.exp(-1.0))))
    assert plain == first[0]
    assert provider.calls == 2  # the plain call is another request; the repeat is cached
    assert llm.ledger.get("judge").cache_hits == 1


def test_the_reader_finds_where_each_value_begins() -> None:
    reader = OddsReader({"overall": ["1", "2"], "diversity": ["1", "2"]})
    written = []
    for piece in ['{"', "diversity", '":', ' "', "1", '",', ' "overall"', ':"', "2", '"}']:
        written.append(reader.due())
        if reader.due():
            reader.note(reader.due()[0], {"1": -0.1, "2": -2.0})
        reader.feed(piece)
    assert [i for i, due in enumerate(written) if due] == [4, 8]
    assert written[4] == ["diversity"] and written[8] == ["overall"]
    result = reader.result()
    assert result is not None and set(result) == {"diversity", "overall"}
    assert sum(math.exp(v) for v in result["overall"].values()) == pytest.approx(1.0)
    assert OddsReader({"overall": ["1"]}).result() is None


def test_normalised_odds() -> None:
    assert normalised({"1": math.log(0.2), "2": math.log(0.2)}) == pytest.approx(
        {"1": math.log(0.5), "2": math.log(0.5)}
    )
    assert normalised({"1": -1.0, "2": -math.inf}) == {"1": 0.0, "2": -math.inf}
    assert normalised({"1": -math.inf, "2": -math.inf}) == pytest.approx(
        {"1": math.log(0.5), "2": math.log(0.5)}
    )
