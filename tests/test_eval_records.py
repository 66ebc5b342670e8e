"""Evaluation records: scoring, JSON round trip and the resumable results.jsonl."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmind.core.errors import ConfigError
from graphmind.eval.records import (
    RESULTS_FILE,
    QuestionResult,
    append_result,
    done_keys,
    load_results,
    score,
)
from helpers.records import make_result


def test_score_uses_squad_em_and_f1_over_aliases() -> None:
    assert score("the Atlantic", ["Atlantic Ocean", "Atlantic"], True, False) == (1.0, 1.0, True)
    # "plata" against "rio de la plata": P = 1, R = 1/4, F1 = 0.4
    em, f1, correct = score("the Plata", ["Rio de la Plata"], True, False)
    assert (em, correct) == (0.0, False)
    assert f1 == pytest.approx(0.4)
    # "port ellis harbour" against "port ellis": F1 = 0.8, exactly the threshold
    em, f1, correct = score("Port Ellis harbour", ["Port Ellis"], True, False)
    assert (em, correct) == (0.0, True)
    assert f1 == pytest.approx(0.8)


def test_score_abstention() -> None:
    assert score("", [], False, True) == (1.0, 1.0, True)
    assert score("self-care is important", [], False, False) == (0.0, 0.0, False)
    assert score("Rosario", ["Rosario"], True, True) == (0.0, 0.0, False)


def test_record_round_trips_through_json_with_int_recall_keys() -> None:
    record = make_result(
        recall_first={2: 0.5, 5: None},
        recall_final={2: 1.0, 5: 1.0},
        verdicts={"chunk:1": "used", "chunk:2": "rejected"},
        query_type="qt-3",
        decision_id="d-1",
        error="LLM timeout",
        profile_coverage=0.25,
        excluded=2,
    )
    line = json.dumps(record.to_json())
    back = QuestionResult.from_json(json.loads(line))
    assert back == record
    assert list(back.recall_first) == [2, 5]


def test_from_json_rejects_what_is_not_a_record() -> None:
    data = make_result().to_json()
    with pytest.raises(ValueError, match="unknown result fields: surprise"):
        QuestionResult.from_json({**data, "surprise": 1})
    del data["prediction"]
    with pytest.raises(ValueError, match="prediction"):
        QuestionResult.from_json(data)


def test_results_file_appends_and_loads(tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert load_results(run) == []
    first, second = make_result("q1"), make_result("q2", config="graphmind")
    append_result(run, first)
    append_result(run, second)
    assert load_results(run) == [first, second]
    assert done_keys(run) == {("musique", "naive", "q1"), ("musique", "graphmind", "q2")}


def test_a_cut_off_last_line_is_ignored_then_replaced(tmp_path: Path) -> None:
    first, second, third = make_result("q1"), make_result("q2"), make_result("q3")
    append_result(tmp_path, first)
    line = json.dumps(second.to_json())
    with (tmp_path / RESULTS_FILE).open("a", encoding="utf-8") as out:
        out.write(line[: len(line) // 2])  # the run was killed mid-write
    assert load_results(tmp_path) == [first]
    assert done_keys(tmp_path) == {("musique", "naive", "q1")}
    append_result(tmp_path, third)
    assert load_results(tmp_path) == [first, third]


def test_a_complete_last_record_without_newline_is_kept(tmp_path: Path) -> None:
    first, second, third = make_result("q1"), make_result("q2"), make_result("q3")
    append_result(tmp_path, first)
    with (tmp_path / RESULTS_FILE).open("a", encoding="utf-8") as out:
        out.write(json.dumps(second.to_json()))
    assert load_results(tmp_path) == [first, second]
    append_result(tmp_path, third)
    assert load_results(tmp_path) == [first, second, third]


def test_a_bad_line_inside_the_file_is_an_error(tmp_path: Path) -> None:
    append_result(tmp_path, make_result("q1"))
    with (tmp_path / RESULTS_FILE).open("a", encoding="utf-8") as out:
        out.write("{broken\n")
    append_result(tmp_path, make_result("q2"))
    with pytest.raises(ConfigError, match="line 2"):
        load_results(tmp_path)
