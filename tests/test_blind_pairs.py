"""Blind pairs for a second reader: what the reader sees names no system, and the score
unblinds each verdict by the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scripts import blind_pairs
from scripts.benchkit import BROAD_CRITERIA

QUESTIONS = [
    {"id": "broad-001", "question": "What are the main themes?"},
    {"id": "broad-002", "question": "Which risks does the manual describe?"},
]


@pytest.fixture
def record(tmp_path: Path) -> Path:
    folder = tmp_path / "record"
    folder.mkdir()
    rows = [
        {"id": q["id"], "config": config, "full_answer": f"{config} answer to {q['id']}"}
        for q in QUESTIONS
        for config in ("naive", "loop", "broad")
    ]
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "questions.json").write_text(json.dumps(QUESTIONS))
    return folder


def test_the_pairs_name_no_system_and_the_key_says_which_answer_is_broad(
    record: Path, tmp_path: Path
) -> None:
    out = tmp_path / "blind"
    assert blind_pairs.write(record, out, tmp_path / "questions.json", seed=1) == 4
    shown = (out / "pairs.md").read_text()
    key = [json.loads(line) for line in (out / "key.jsonl").read_text().splitlines()]
    assert {(k["id"], k["other"]) for k in key} == {
        (q["id"], o) for q in QUESTIONS for o in ("naive", "loop")
    }
    for k in key:
        block = shown.split(f"## {k['pair']}\n")[1].split("\n## ")[0]
        broad_at = block.index(f"broad answer to {k['id']}")
        other_at = block.index(f"{k['other']} answer to {k['id']}")
        assert (broad_at < other_at) == (k["system_is"] == "1")
    # the reader sees the answers' texts only: here they carry the system's name on purpose,
    # so the headings and labels must not
    assert "naive" not in shown.replace("naive answer", "")
    assert "loop" not in shown.replace("loop answer", "")


def test_a_reader_s_verdicts_are_scored_for_broad_by_the_key(record: Path, tmp_path: Path) -> None:
    out = tmp_path / "blind"
    blind_pairs.write(record, out, tmp_path / "questions.json", seed=1)
    key = [json.loads(line) for line in (out / "key.jsonl").read_text().splitlines()]
    # a reader who always prefers broad's answer, except a tie on one pair
    verdicts = [{"pair": k["pair"], **dict.fromkeys(BROAD_CRITERIA, k["system_is"])} for k in key]
    verdicts[0]["overall"] = "tie"
    (out / "verdicts.jsonl").write_text("".join(json.dumps(v) + "\n" for v in verdicts))
    table, rows = blind_pairs.score(out / "key.jsonl", out / "verdicts.jsonl")
    tied = key[0]["other"]
    untied = "loop" if tied == "naive" else "naive"
    assert table[f"broad_vs_{tied}"]["overall"] == {"wins_ties_losses": [1, 1, 0], "won": 0.75}
    assert table[f"broad_vs_{untied}"]["overall"]["won"] == 1.0
    assert {r["overall"] for r in rows} == {"win", "tie"}


def test_a_missing_or_unreadable_verdict_is_a_clear_error(record: Path, tmp_path: Path) -> None:
    out = tmp_path / "blind"
    blind_pairs.write(record, out, tmp_path / "questions.json", seed=1)
    (out / "verdicts.jsonl").write_text(json.dumps({"pair": "P01", "overall": "maybe"}) + "\n")
    with pytest.raises(blind_pairs.BlindError, match="no verdict for P02"):
        blind_pairs.score(out / "key.jsonl", out / "verdicts.jsonl")
    key = [json.loads(line) for line in (out / "key.jsonl").read_text().splitlines()]
    unsure = [{"pair": k["pair"], **dict.fromkeys(BROAD_CRITERIA, "1")} for k in key]
    unsure[1]["diversity"] = "maybe"
    (out / "verdicts.jsonl").write_text("".join(json.dumps(v) + "\n" for v in unsure))
    with pytest.raises(blind_pairs.BlindError, match="P02 diversity is 'maybe'"):
        blind_pairs.score(out / "key.jsonl", out / "verdicts.jsonl")
    with pytest.raises(blind_pairs.BlindError, match="no such file"):
        blind_pairs.score(out / "key.jsonl", tmp_path / "none.jsonl")
    naive_only = tmp_path / "naive-only"
    naive_only.mkdir()
    (naive_only / "results.jsonl").write_text(
        json.dumps({"id": "broad-001", "config": "naive", "full_answer": "x"}) + "\n"
    )
    with pytest.raises(blind_pairs.BlindError, match="no question has broad's answer"):
        blind_pairs.write(naive_only, out, tmp_path / "questions.json", seed=1)


def test_the_loop_against_naive_shows_the_reference_and_scores_answers_written_alike_as_ties(
    tmp_path: Path,
) -> None:
    asked = [
        {"id": "q1", "question": "What does the GIL do?", "reference": "It locks the VM."},
        {"id": "q2", "question": "Why use with?", "reference": "Clean-up."},
    ]
    (tmp_path / "questions.json").write_text(json.dumps(asked))
    record = tmp_path / "run"
    record.mkdir()
    rows = [
        {"id": "q1", "config": "naive", "full_answer": "The GIL locks the interpreter. [1]"},
        {"id": "q1", "config": "loop", "full_answer": "The  GIL locks the interpreter. [1]"},
        {"id": "q2", "config": "naive", "full_answer": "It closes files. [2]"},
        {"id": "q2", "config": "loop", "full_answer": "It always cleans up. [1]"},
    ]
    (record / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "blind"
    n = blind_pairs.write(record, out, tmp_path / "questions.json", 1, "loop", ("overall",))
    assert n == 2
    shown = (out / "pairs.md").read_text()
    assert "Why use with?" in shown and "Clean-up." in shown and "GIL" not in shown
    key = {k["id"]: k for k in map(json.loads, (out / "key.jsonl").read_text().splitlines())}
    assert key["q1"]["same"] and not key["q2"]["same"]
    won = {"pair": key["q2"]["pair"], "overall": key["q2"]["system_is"]}
    (out / "verdicts.jsonl").write_text(json.dumps(won) + "\n")
    table, _ = blind_pairs.score(out / "key.jsonl", out / "verdicts.jsonl")
    assert table == {"loop_vs_naive": {"overall": {"wins_ties_losses": [1, 1, 0], "won": 0.75}}}
    # a key written before keys named their system is broad's, on broad's criteria
    old = {"pair": "P01", "id": "q1", "other": "naive", "broad_is": "2"}
    (out / "old.jsonl").write_text(json.dumps(old) + "\n")
    (out / "said.jsonl").write_text(
        json.dumps({"pair": "P01", **dict.fromkeys(BROAD_CRITERIA, "2")}) + "\n"
    )
    table, _ = blind_pairs.score(out / "old.jsonl", out / "said.jsonl")
    assert table["broad_vs_naive"]["overall"]["won"] == 1.0
