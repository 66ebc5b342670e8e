"""Evaluation reports: report.md tables, results.json, charts, and run comparison."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from graphmind.core.errors import ConfigError
from graphmind.eval.metrics import consistency
from graphmind.eval.records import QuestionResult, append_result
from graphmind.eval.report import compare_runs, write_report
from helpers.records import make_result

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
META = {
    "command": "graphmind eval musique --limit 4",
    "dataset": "musique",
    "model": "qwen2.5-coder-1.5b",
    "limit": 4,
    "seed": 0,
    "date": "2026-11-22T10:00:00+00:00",
}


def run_records() -> list[QuestionResult]:
    """naive: 1 of 4 right; graphmind: 3 of 4 right, with evidence profiles on the last two."""
    naive = [
        make_result("q1", position=0, recall_first={5: 0.5}, recall_final={5: 0.5}),
        make_result("q2", position=1, prediction="Paris", recall_first={5: 0.0}),
        make_result("q3", position=2, prediction="Paris"),
        make_result("q4", position=3, prediction="Paris"),
    ]
    graphmind = [
        make_result(
            f"q{i + 1}",
            config="graphmind",
            position=i,
            prediction="Paris" if i == 3 else "Rosario",
            profile_coverage=[0.0, 0.1, 0.6, 0.7][i],
            recall_first={5: 0.5},
            recall_final={5: 1.0},
            llm_calls=3,
            tokens=900,
            latency_ms=4000.0,
            llm_ms=3000.0,
            store_ms=500.0,
        )
        for i in range(4)
    ]
    return naive + graphmind


def test_write_report_files_tables_and_charts(tmp_path: Path) -> None:
    checks = [
        consistency("q1", "graphmind", [{"c1": "used", "c2": "rejected"}] * 3),
        consistency("q2", "graphmind", [{"c1": "used"}, {"c1": "rejected"}]),
    ]
    path = write_report(tmp_path, run_records(), meta=META, consistency=checks)
    assert path == tmp_path / "report.md"
    report = path.read_text(encoding="utf-8")
    assert "| command | `graphmind eval musique --limit 4` |" in report
    assert "| model | qwen2.5-coder-1.5b |" in report
    assert "| date | 2026-11-22T10:00:00+00:00 |" in report
    # config | n | EM | F1 | Acc | R@5 r1 | R@5 final | abstain | calls/q | tokens/q | latency
    assert (
        "| naive | 4 | 0.250 | 0.250 | 0.250 | 0.250 | 0.500 | 0.000 | 1.0 | 100 "
        "| 1.00 (0.80 / 0.10) |" in report
    )
    assert (
        "| graphmind | 4 | 0.750 | 0.750 | 0.750 | 0.500 | 1.000 | 0.000 | 3.0 | 900 "
        "| 4.00 (3.00 / 0.50) |" in report
    )
    assert "| graphmind | 4 | 0 | 2 | 0.5 |" in report  # McNemar b=0, c=2: p = 2/4
    assert (
        "| graphmind | +0.000 (n=1; 0/0, p=1) | +1.000 (n=1; 0/1, p=1) | n/a (n=0) "
        "| +0.500 (n=2; 0/1, p=1) |" in report
    )
    # paired deltas 0, +1, +1, 0 over coverages 0, 0.1, 0.6, 0.7
    for measure in ("accuracy", "F1"):
        assert f"| graphmind | {measure} | 4 | +0.000 | [-0.961, +0.961] |" in report
    # learning curve: one block per question here
    assert "| 3-3 | 0.000 (0.333) | 1.000 (1.000) |" in report
    assert "| graphmind | 2 | 0.500 | 0.500 |" in report  # consistency means
    assert "| q2 | graphmind | 2 | 0.000 | 1.000 |" in report

    payload = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert payload["meta"] == META
    assert [(s["config"], s["accuracy"]) for s in payload["summaries"]] == [
        ("naive", 0.25),
        ("graphmind", 0.75),
    ]
    assert [QuestionResult.from_json(r) for r in payload["records"]] == run_records()
    assert payload["mcnemar_vs_baseline"] == [
        {"dataset": "musique", "config": "graphmind", "paired": 4, "b": 0, "c": 2, "p": 0.5}
    ]
    assert len(payload["consistency"]) == 2
    for chart in ("dose_response.png", "learning_curve.png", "cost_latency.png"):
        data = (tmp_path / chart).read_bytes()
        assert data.startswith(PNG_SIGNATURE) and len(data) > 1000


def test_report_without_baseline_or_consistency(tmp_path: Path) -> None:
    records = [r for r in run_records() if r.config == "graphmind"]
    write_report(tmp_path, records, meta={"dataset": "musique"}, consistency=None)
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "No naive baseline with other configurations in this run." in report
    assert "No naive baseline to compare with." in report
    assert "Verdict consistency" not in report
    assert "| date |" in report  # filled in when the caller gives none
    assert (
        json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))["consistency"] is None
    )
    assert (tmp_path / "dose_response.png").read_bytes().startswith(PNG_SIGNATURE)


def test_without_naive_the_configurations_are_compared_with_vr(tmp_path: Path) -> None:
    """ROZA's runs (vr, rg, rg-full) have no naive: rg and rg-full are compared with vr,
    the vanilla RAG they extend."""
    records = [replace(r, config="vr" if r.config == "naive" else "rg") for r in run_records()]
    write_report(tmp_path, records, meta={"dataset": "musique"}, consistency=None)
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "### McNemar vs vr (exact" in report and "| rg | 4 | 0 | 2 | 0.5 |" in report
    assert "### Accuracy Δ vs vr by evidence-profile coverage" in report
    assert "| rg | accuracy | 4 | +0.000 | [-0.961, +0.961] |" in report
    payload = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert payload["baseline"] == "vr"


def test_the_report_says_what_the_planner_excluded(tmp_path: Path) -> None:
    records = run_records()
    write_report(tmp_path, records, meta={"dataset": "musique"}, consistency=None)
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "The planner excluded no passage in this run." in report
    pruned = [
        replace(r, excluded=2, gold_excluded=int(r.question_id == "q2"))
        if r.config == "graphmind" and r.question_id in ("q1", "q2")
        else r
        for r in records
    ]
    write_report(tmp_path, pruned, meta={"dataset": "musique"}, consistency=None)
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    # config | questions with exclusions | passages | gold passages | questions that lost gold
    assert "| graphmind | 2 | 4 | 1 | 1 |" in report


def test_write_report_needs_results(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no evaluation results"):
        write_report(tmp_path, [], meta={}, consistency=None)


def test_compare_runs_deltas_and_mcnemar_on_shared_questions(tmp_path: Path) -> None:
    run_a, run_b = tmp_path / "a", tmp_path / "b"
    for record in run_records():
        append_result(run_a, record)
    for i in range(5):  # graphmind right on q1..q4 and on a question run A never asked
        append_result(
            run_b,
            make_result(
                f"q{i + 1}",
                config="graphmind",
                position=i,
                recall_final={5: 1.0},
                tokens=600,
                latency_ms=3000.0,
            ),
        )
    table = compare_runs(run_a, run_b)
    # on q1..q4: accuracy 0.75 -> 1.0; tokens 900 -> 600; latency 4.0 -> 3.0 s;
    # McNemar b (A right, B wrong) = 0, c = 1 (q4): p = 1.0
    assert (
        "| musique | graphmind | 4 | +0.250 | +0.250 | +0.250 | +0.000 | -300 | -1.00 "
        "| 0 | 1 | 1 |" in table
    )
    assert "Not compared: musique/naive (A only)." in table


def test_compare_runs_rejects_what_is_not_a_run(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        compare_runs(tmp_path / "missing", tmp_path)
    with pytest.raises(ConfigError, match=r"has no results\.jsonl"):
        compare_runs(tmp_path, tmp_path)
    (tmp_path / "results.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(ConfigError, match="has no results yet"):
        compare_runs(tmp_path, tmp_path)
