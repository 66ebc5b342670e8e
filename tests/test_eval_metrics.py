"""Evaluation metrics against hand-computed values."""

from __future__ import annotations

import math
from dataclasses import astuple

import pytest

from graphmind.eval.datasets import GoldPassage
from graphmind.eval.metrics import (
    COVERAGE_BINS,
    DoseCell,
    Latency,
    McNemar,
    consistency,
    coverage_bin,
    coverage_correlation,
    dose_response,
    gold_reuse,
    learning_curve,
    mcnemar_exact,
    percentile,
    recall_at_k,
    spearman,
    summarize,
    verdict_entropy,
    verdict_identity_rate,
)
from graphmind.eval.records import QuestionResult
from helpers.records import make_result

BARCA_A = "FC Barcelona signed the forward Lionel Messi from its youth academy La Masia in 2004."
BARCA_B = "FC Barcelona won the treble under coach Pep Guardiola in the 2008 to 2009 season."
MESSI = "Lionel Messi was born in the city of Rosario in the Argentine province of Santa Fe."


def test_recall_at_k_with_split_passages_and_repeated_titles() -> None:
    gold = [GoldPassage("FC Barcelona", BARCA_A), GoldPassage("Lionel Messi", MESSI)]
    words = BARCA_A.split()
    retrieved = [
        ("FC Barcelona", BARCA_B),  # same title, another paragraph: not gold
        ("FC Barcelona", "FC Barcelona\n" + " ".join(words[:8])),  # first piece of a split
        ("Lionel Messi", f"Lionel Messi\n{MESSI}"),
        ("FC Barcelona", " ".join(words[7:])),  # second piece: the same passage again
    ]
    assert recall_at_k(retrieved, gold, 1) == 0.0
    assert recall_at_k(retrieved, gold, 2) == 0.5
    assert recall_at_k(retrieved, gold, 3) == 1.0
    assert recall_at_k(retrieved, gold, 4) == 1.0
    assert recall_at_k(retrieved, [], 5) is None


@pytest.mark.parametrize(
    ("a_only", "b_only", "p"),
    [
        (0, 6, 0.03125),  # 2 * 1/64
        (1, 5, 0.21875),  # 2 * (1 + 6)/64
        (2, 8, 0.109375),  # 2 * (1 + 10 + 45)/1024
        (3, 3, 1.0),  # 2 * 42/64 > 1, capped
        (0, 0, 1.0),
    ],
)
def test_mcnemar_exact_p_values(a_only: int, b_only: int, p: float) -> None:
    both = 4
    a = [True] * a_only + [False] * b_only + [True] * both + [False]
    b = [False] * a_only + [True] * b_only + [True] * both + [False]
    assert mcnemar_exact(a, b) == McNemar(a_only, b_only, p)


def test_mcnemar_needs_paired_samples() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        mcnemar_exact([True], [True, False])


def test_coverage_bin_boundaries() -> None:
    assert COVERAGE_BINS == ("0%", "(0,20)%", "[20,50)%", "≥50%")
    assert coverage_bin(0.0) == "0%"
    assert coverage_bin(0.001) == "(0,20)%"
    assert coverage_bin(0.1999) == "(0,20)%"
    assert coverage_bin(0.2) == "[20,50)%"
    assert coverage_bin(0.4999) == "[20,50)%"
    assert coverage_bin(0.5) == "≥50%"
    assert coverage_bin(1.0) == "≥50%"
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match="coverage"):
            coverage_bin(bad)


def test_verdict_identity_rate_and_entropy() -> None:
    runs = [
        {"p1": "used", "p2": "rejected"},
        {"p1": "used", "p2": "rejected"},
        {"p1": "used", "p2": "used"},
    ]
    # pairs (1,2) identical, (1,3) and (2,3) differ on p2
    assert verdict_identity_rate(runs) == pytest.approx(1 / 3)
    # p1: always used -> 0 bits; p2: 2 rejected, 1 used -> 0.9183 bits; mean 0.4591
    h = -(2 / 3 * math.log2(2 / 3) + 1 / 3 * math.log2(1 / 3))
    assert verdict_entropy(runs) == pytest.approx(h / 2)
    assert verdict_entropy([{"p": "used"}, {"p": "rejected"}]) == pytest.approx(1.0)


def test_consistency_compares_only_passages_judged_in_both_runs() -> None:
    # p2 judged once: left out of both measures
    runs = [{"p1": "used", "p2": "used"}, {"p1": "used"}]
    assert verdict_identity_rate(runs) == 1.0
    assert verdict_entropy(runs) == 0.0
    disjoint = [{"p1": "used"}, {"p2": "used"}]
    assert verdict_identity_rate(disjoint) is None
    assert verdict_entropy(disjoint) is None
    single = consistency("q1", "graphmind", [{"p1": "used"}])
    assert (single.runs, single.identity_rate, single.entropy) == (1, None, None)


def test_percentile_interpolates() -> None:
    values = [1000.0, 2000.0, 3000.0, 4000.0, 10000.0]
    assert percentile(values, 0.5) == 3000.0
    assert percentile(values, 0.95) == pytest.approx(8800.0)  # 4000 + 0.8 * 6000
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert percentile([7.0], 0.95) == 7.0


def five_answers() -> list[QuestionResult]:
    return [
        make_result("q1", prediction="Rosario", answers=("Rosario",)),
        make_result("q2", prediction="the Plata", answers=("Rio de la Plata",)),  # F1 0.4
        make_result("q3", prediction="Atlantic", answers=("Atlantic Ocean", "the Atlantic")),
        make_result("q4", prediction="", answers=(), answerable=False, abstained=True),
        make_result("q5", prediction="", answers=("Rosario",), abstained=True),
    ]


def test_summarize_scores_recall_cost_and_latency() -> None:
    results = five_answers()
    for i, (r, first, final) in enumerate(
        zip(results, [1.0, 0.5, None, 0.0, 0.5], [1.0, 1.0, None, 0.5, 0.5], strict=True)
    ):
        r.recall_first = {5: first}
        r.recall_final = {5: final}
        r.llm_calls, r.tokens = i + 1, 100 * (i + 1)
        r.latency_ms = [1000.0, 2000.0, 3000.0, 4000.0, 10000.0][i]
        r.llm_ms, r.store_ms = r.latency_ms / 2, 100.0
    results[1].error = "timeout"
    s = summarize(results)
    assert (s.dataset, s.config, s.n, s.errors) == ("musique", "naive", 5, 1)
    assert s.em == pytest.approx(3 / 5)
    assert s.f1 == pytest.approx((1 + 0.4 + 1 + 1 + 0) / 5)
    assert s.accuracy == pytest.approx(3 / 5)  # q1, q3, and the abstention on q4
    assert s.abstention_rate == pytest.approx(2 / 5)
    assert s.recall_first == {5: pytest.approx(2 / 4)}  # q3 has no gold
    assert s.recall_final == {5: pytest.approx(3 / 4)}
    assert (s.llm_calls_mean, s.llm_calls_total) == (3.0, 15)
    assert (s.tokens_mean, s.tokens_total) == (300.0, 1500)
    assert astuple(s.latency) == pytest.approx((4000.0, 3000.0, 8800.0))
    assert astuple(s.llm) == pytest.approx((2000.0, 1500.0, 4400.0))
    assert s.store == Latency(100.0, 100.0, 100.0)


def test_summarize_takes_one_configuration() -> None:
    with pytest.raises(ValueError, match="one configuration"):
        summarize([make_result("q1"), make_result("q1", config="graphmind")])
    with pytest.raises(ValueError, match="one configuration"):
        summarize([])


def test_dose_response_compares_with_the_baseline_on_the_same_questions() -> None:
    naive = [
        make_result("q1", prediction="Rosario"),
        make_result("q2", prediction="Paris"),
        make_result("q3", prediction="Paris"),
        make_result("q4", prediction="Paris"),
    ]
    graphmind = [
        make_result("q1", config="graphmind", profile_coverage=0.0),
        make_result("q2", config="graphmind", profile_coverage=0.1),
        make_result("q3", config="graphmind", profile_coverage=0.6),
        make_result("q4", config="graphmind", prediction="Paris", profile_coverage=0.7),
        make_result("q9", config="graphmind", profile_coverage=0.9),  # naive never asked
    ]
    cells = dose_response(naive + graphmind)
    assert cells == [
        DoseCell("musique", "graphmind", "0%", 1, 1.0, 1.0, 0.0, McNemar(0, 0, 1.0)),
        DoseCell("musique", "graphmind", "(0,20)%", 1, 1.0, 0.0, 1.0, McNemar(0, 1, 1.0)),
        DoseCell("musique", "graphmind", "[20,50)%", 0, None, None, None),
        DoseCell("musique", "graphmind", "≥50%", 2, 0.5, 0.0, 0.5, McNemar(0, 1, 1.0)),
    ]
    assert dose_response(graphmind) == []  # no baseline answers, nothing to compare
    accuracy, f1 = coverage_correlation(naive + graphmind, "naive")
    # paired deltas 0, +1, +1, 0 over coverages 0, 0.1, 0.6, 0.7 (q9 has no pair)
    for rho, measure in ((accuracy, "accuracy"), (f1, "F1")):
        assert (rho.config, rho.measure, rho.n) == ("graphmind", measure, 4)
        assert rho.rho == pytest.approx(0.0)
        assert (rho.low, rho.high) == (
            pytest.approx(-math.tanh(1.96)),
            pytest.approx(math.tanh(1.96)),
        )
    assert coverage_correlation(graphmind, "naive") == []


def test_spearman_ranks_with_ties() -> None:
    assert spearman([1, 2, 3, 4], [10, 20, 30, 45]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [9, 7, 5, 1]) == pytest.approx(-1.0)
    # ties share their mean rank: x ranks 1, 2.5, 2.5, 4 against y ranks 1..4
    assert spearman([0.0, 0.5, 0.5, 1.0], [1, 2, 3, 4]) == pytest.approx(4.5 / math.sqrt(4.5 * 5))
    assert spearman([0.0, 0.0, 0.0], [1, 0, -1]) is None  # no coverage varies: undefined
    assert spearman([1.0], [1.0]) is None
    with pytest.raises(ValueError, match="differ in length"):
        spearman([1.0, 2.0], [1.0])


def test_gold_reuse_counts_gold_an_earlier_question_had() -> None:
    a, b, c = (GoldPassage(t, t) for t in "abc")
    # 6 distinct gold passages per question in all; b in the second and a, b in the
    # third were gold for an earlier question
    assert gold_reuse([[a, b], [b], [a, b, c, c]]) == pytest.approx(3 / 6)
    assert gold_reuse([[a], [b]]) == 0.0
    assert gold_reuse([[], []]) is None


def test_learning_curve_follows_asking_order() -> None:
    results = [
        make_result("q3", position=2, prediction="Paris"),
        make_result("q1", position=0),
        make_result("q2", position=1),
        make_result("q4", position=3),
        make_result("q1", config="graphmind", position=0, prediction="Paris"),
    ]
    naive, graphmind = learning_curve(results)
    assert (naive.config, naive.positions, naive.correct) == (
        "naive",
        [0, 1, 2, 3],
        [True, True, False, True],
    )
    assert naive.running == pytest.approx([1.0, 1.0, 2 / 3, 3 / 4])
    assert (graphmind.correct, graphmind.running) == ([False], [0.0])
