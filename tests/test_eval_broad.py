"""scripts/eval_broad.py without a model: broad's win rate, intervals and order agreement
from judged rows, the pairwise judge's calls in both orders with a scripted model, the
rows written per answer and the command's errors."""

from __future__ import annotations

import json
import math
from dataclasses import fields
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import ValidationError

from graphmind.ask.options import AskOptions
from graphmind.config import load_settings
from graphmind.core.decision import Citation, Decision, Statement, Sufficiency
from graphmind.core.errors import GraphMindError
from graphmind.factories import CACHE_FILE
from graphmind.llm.base import Completion, Message
from graphmind.llm.cache import ResponseCache
from graphmind.llm.client import LLM
from graphmind.llm.scripted import ScriptedProvider
from scripts import eval_broad
from scripts.benchkit import BROAD_CRITERIA, append_jsonl, ask_each, chosen, read_jsonl
from scripts.eval_broad import (
    JUDGE_MAX_TOKENS,
    Verdicts,
    answer_row,
    ask_options,
    check_judge,
    judge_all,
    pair_stats,
    report,
)


def judged(qid: str, first: str, second: str, other: str = "naive") -> dict[str, Any]:
    """A judged row whose judge said ``first`` (broad as answer 1) and ``second`` (broad
    as answer 2) on every criterion."""
    said = {"a_first": first, "a_second": second, "advantage": None, "lean": None}
    return {"id": qid, "other": other, "criteria": dict.fromkeys(BROAD_CRITERIA, said)}


def test_a_judge_that_always_says_answer_1_agrees_with_itself_never_and_scores_half() -> None:
    stats = pair_stats([judged(f"q{i}", "1", "1") for i in range(5)])
    assert stats["questions"] == 5
    for criterion in BROAD_CRITERIA:
        assert stats[criterion]["win_rate"] == 0.5
        assert stats[criterion]["orders_agree"] == 0.0
        assert stats[criterion]["bootstrap_95"] == [0.5, 0.5]  # every question scores half


def test_wins_ties_and_losses_count_both_orders() -> None:
    rows = [
        judged("q1", "1", "2"),  # broad wins in both orders: 1, the orders agree
        judged("q2", "tie", "2"),  # a tie, then a win: 0.75, they disagree
        judged("q3", "2", "1"),  # the other wins in both: 0, they agree
    ]
    stats = pair_stats(rows)["overall"]
    assert stats["win_rate"] == 0.583  # 1.75 of 3
    assert stats["orders_agree"] == 0.667
    assert stats["wins_ties_losses"] == [2, 0, 1]
    assert stats["wilson_95"] == [0.208, 0.939]  # by hand: p = 2/3, n = 3
    low, high = stats["bootstrap_95"]
    assert 0.0 <= low < 0.583 < high <= 1.0
    assert pair_stats(rows)["overall"]["bootstrap_95"] == [low, high]  # seeded
    assert pair_stats([]) == {"questions": 0, **{key: {"pairs": 0} for key in BROAD_CRITERIA}}


def test_a_tie_in_both_orders_is_agreement_at_half() -> None:
    stats = pair_stats([judged("q1", "tie", "tie")])["diversity"]
    assert stats["win_rate"] == 0.5 and stats["orders_agree"] == 1.0


def test_the_verdicts_read_lightrag_s_shape_and_a_tie_but_offer_only_1_or_2() -> None:
    said = Verdicts.model_validate(
        {
            "Comprehensiveness": {"Winner": "Answer 2", "Explanation": "more detail"},
            "diversity": "Tie",
            "empowerment": 1,
            "Overall Winner": {"Winner": "Answer 1"},
        }
    )
    assert said.model_dump() == {
        "comprehensiveness": "2",
        "diversity": "tie",
        "empowerment": "1",
        "overall": "1",
    }
    schema = Verdicts.model_json_schema()
    assert schema["properties"]["overall"]["enum"] == ["1", "2"]
    assert sorted(schema["required"]) == sorted(BROAD_CRITERIA)
    for bad in ("Answer 1 or Answer 2", "3", None):
        with pytest.raises(ValidationError):
            Verdicts.model_validate({**dict.fromkeys(BROAD_CRITERIA, "1"), "overall": bad})
    with pytest.raises(ValidationError):
        Verdicts.model_validate(dict.fromkeys(BROAD_CRITERIA[:3], "1"))  # no overall winner


def answers_in(messages: list[Message]) -> tuple[str, str]:
    """Answer 1 and answer 2 as the judge's prompt lays them out."""
    text = messages[1]["content"]
    one, two = text.split("\n\nAnswer 2: ")
    return one.split("\n\nAnswer 1: ")[1], two


def prefers_broad(messages: list[Message]) -> str:
    """A judge that finds broad's answer better on all but diversity (a tie), answering
    in LightRAG's own shape for one criterion."""
    slot = "1" if "BROAD" in answers_in(messages)[0] else "2"
    return json.dumps(
        {
            "Comprehensiveness": {"Winner": f"Answer {slot}", "Explanation": "more"},
            "diversity": "tie",
            "empowerment": slot,
            "overall": slot,
        }
    )


def results_file(tmp_path: Path) -> tuple[list[dict[str, Any]], Path]:
    """Three questions: q1 and q2 answered by every configuration, q3 not by naive."""
    questions = [{"id": f"q{i}", "question": f"What about topic {i}?"} for i in (1, 2, 3)]
    results = tmp_path / "results.jsonl"
    for q in questions:
        for config, seconds in (("naive", 2.0), ("loop", 4.0), ("broad", 6.0)):
            if (q["id"], config) == ("q3", "naive"):
                continue
            row = {
                "id": q["id"],
                "config": config,
                "full_answer": f"{config.upper()} answer to {q['id']}",
                "seconds": seconds,
                "passages": 3,
                "communities": 4 if config == "broad" else 0,
            }
            append_jsonl(results, row)
    return questions, results


def test_the_judge_sees_broad_first_then_second_and_resumes(tmp_path: Path) -> None:
    questions, results = results_file(tmp_path)
    provider = ScriptedProvider(prefers_broad)
    llm = LLM(provider, cache=None)
    out = tmp_path / "judged.jsonl"
    configs = ["naive", "loop", "broad"]

    judge_all(llm, questions, results, out, configs)

    rows = read_jsonl(out)
    assert [(r["id"], r["other"]) for r in rows] == [
        ("q1", "naive"),
        ("q1", "loop"),
        ("q2", "naive"),
        ("q2", "loop"),
        ("q3", "loop"),  # q3 has no naive answer to judge
    ]
    assert provider.calls == 10  # both orders of each pair
    shown = [answers_in(m) for m in provider.requests]
    assert shown[0] == ("BROAD answer to q1", "NAIVE answer to q1")
    assert shown[1] == ("NAIVE answer to q1", "BROAD answer to q1")
    assert set(provider.max_tokens) == {JUDGE_MAX_TOKENS}
    assert rows[0]["criteria"]["comprehensiveness"]["a_first"] == "1"
    assert rows[0]["criteria"]["comprehensiveness"]["a_second"] == "2"

    table = report(questions, results, out, configs)
    assert table["questions_judged"] == 3
    naive, loop = table["broad_vs_naive"], table["broad_vs_loop"]
    assert naive["questions"] == 2 and loop["questions"] == 3
    for pair in (naive, loop):
        assert pair["comprehensiveness"]["win_rate"] == 1.0
        assert pair["overall"]["orders_agree"] == 1.0
        assert pair["overall"]["with_odds"] == 0  # a scripted judge reads no odds
        diversity = pair["diversity"]
        assert (diversity["win_rate"], diversity["orders_agree"]) == (0.5, 1.0)
        assert diversity["bootstrap_95"] == [0.5, 0.5]
        assert diversity["wins_ties_losses"] == [0, pair["questions"], 0]

    judge_all(llm, questions, results, out, configs)  # everything judged: no new call
    assert provider.calls == 10 and len(read_jsonl(out)) == 5


def test_a_position_biased_judge_through_the_whole_judging(tmp_path: Path) -> None:
    questions, results = results_file(tmp_path)
    always_first = json.dumps(dict.fromkeys(BROAD_CRITERIA, "1"))
    out = tmp_path / "judged.jsonl"

    judge_all(
        LLM(ScriptedProvider(lambda m: always_first), cache=None),
        questions,
        results,
        out,
        ["broad", "naive"],
    )

    table = report(questions, results, out, ["broad", "naive"])
    assert "broad_vs_loop" not in table
    assert table["broad_vs_naive"]["overall"]["win_rate"] == 0.5
    assert table["broad_vs_naive"]["overall"]["orders_agree"] == 0.0


def test_a_position_biased_judge_s_odds_still_find_the_better_answer(tmp_path: Path) -> None:
    """Always "1", but a little surer of it when broad's answer stands there."""
    questions, results = results_file(tmp_path)

    def leaning(messages: list[Message]) -> Completion:
        d = 3.0 if "BROAD" in answers_in(messages)[0] else 2.0
        p1 = 1 / (1 + math.exp(-d))
        odds = {key: {"1": math.log(p1), "2": math.log(1 - p1)} for key in BROAD_CRITERIA}
        return Completion(json.dumps(dict.fromkeys(BROAD_CRITERIA, "1")), 10, 4, "judge", odds=odds)

    out = tmp_path / "judged.jsonl"
    judge_all(
        LLM(ScriptedProvider(leaning), cache=None), questions, results, out, ["broad", "naive"]
    )

    overall = report(questions, results, out, ["broad", "naive"])["broad_vs_naive"]["overall"]
    assert overall["verdicts_rate"] == 0.5 and overall["orders_agree"] == 0.0
    assert overall["win_rate"] == round(1 / (1 + math.exp(-0.5)), 3)  # (3 - 2) / 2 nats
    assert overall["mean_abs_lean"] == 2.5
    assert overall["wins_ties_losses"] == [2, 0, 0]  # 0.5 nats: at the margin, a win


def test_nothing_is_judged_without_broad(tmp_path: Path) -> None:
    questions, results = results_file(tmp_path)
    provider = ScriptedProvider(prefers_broad)
    judge_all(
        LLM(provider, cache=None), questions, results, tmp_path / "j.jsonl", ["naive", "loop"]
    )
    assert provider.calls == 0


def test_the_report_s_times(tmp_path: Path) -> None:
    questions, results = results_file(tmp_path)
    table = report(questions, results, tmp_path / "none.jsonl", ["naive", "loop", "broad"])
    assert table["questions"] == 3 and table["questions_judged"] == 0
    assert table["naive"] == {"answered": 2, "median_s": 2.0, "median_passages": 3}
    assert table["broad"]["median_s"] == 6.0 and table["broad"]["median_communities"] == 4
    assert table["broad_time_vs_naive"] == 3.0
    assert table["broad_vs_naive"]["questions"] == 0


def test_an_answer_row_counts_passages_and_the_communities_used() -> None:
    d = Decision(
        "d1",
        "What about asyncio?",
        "tasks",
        False,
        Sufficiency.EXACT,
        0.9,
        "broad",
        [],
        [Citation("c1", "asyncio", "Tasks run coroutines.")],
        [],
        False,
        0,
        2500.0,
        0.0,
        0.0,
        "scripted",
        0,
        explanation=[Statement("Tasks run coroutines.", ["c1", "c2"])],
        sources=[Citation("c2", "asyncio", "Event loops run tasks.")],
    )
    used = SimpleNamespace(id="k1", title="asyncio, tasks", verdict="used", reason="covers it")
    unused = SimpleNamespace(id="k2", title="curses", verdict="rejected", reason="off topic")
    object.__setattr__(d, "communities", [used, unused])  # whether or not the field is there

    row = answer_row({"id": "q1"}, "broad", d)

    assert row["full_answer"] == "Tasks run coroutines. [1][2]"
    assert (row["seconds"], row["passages"], row["communities"]) == (2.5, 2, 1)
    assert row["mode"] == "broad"
    assert [c["title"] for c in row["communities_read"]] == ["asyncio, tasks", "curses"]


@pytest.mark.skipif(
    "scope" not in {f.name for f in fields(AskOptions)}, reason="AskOptions.scope not there yet"
)
def test_each_configuration_asks_as_specified() -> None:
    naive, loop, broad = (ask_options(c, 7) for c in ("naive", "loop", "broad"))
    assert (naive.mode, naive.scope) == ("naive", "deep")  # type: ignore[attr-defined]
    assert (loop.mode, loop.scope) == ("loop", "deep")  # type: ignore[attr-defined]
    assert broad.scope == "broad"  # type: ignore[attr-defined]
    for options in (naive, loop, broad):
        assert options.k == 7 and options.explain and not options.record
        assert options.memory.mode == "off"


@pytest.mark.parametrize("text", [None, "not json"])
def test_a_bad_questions_file_is_one_line_and_exit_1(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    text: str | None,
) -> None:
    questions = tmp_path / "questions.json"
    if text is not None:
        questions.write_text(text)
    argv = ["eval_broad.py", "--docs", str(tmp_path), "--run-dir", str(tmp_path / "run")]
    monkeypatch.setattr("sys.argv", [*argv, "--questions", str(questions)])
    assert eval_broad.main() == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


def test_questions_are_chosen_by_id_in_the_files_order_or_spread(tmp_path: Path) -> None:
    path = tmp_path / "questions.json"
    path.write_text(json.dumps([{"id": f"q{i}", "question": f"Q{i}?"} for i in range(10)]))
    assert [q["id"] for q in chosen(path, None, "q7, q2")] == ["q2", "q7"]
    assert [q["id"] for q in chosen(path, 3, None)] == ["q0", "q4", "q9"]
    with pytest.raises(GraphMindError, match="q11"):
        chosen(path, None, "q1,q11")


def test_the_judge_is_checked_where_the_better_answer_is_known() -> None:
    """A judge that always says "1" but is surer of it for the longer answer: its odds
    find the reference better than an unrelated one and than its own first sentence."""
    references = [
        {"id": "r1", "question": "What is a generator?", "reference": "A function. It yields."},
        {
            "id": "r2",
            "question": "What is a tuple?",
            "reference": "An immutable sequence of items.",
        },
    ]

    def longer_first(messages: list[Message]) -> Completion:
        first, second = answers_in(messages)
        d = 2.0 + (0.5 if len(first) > len(second) else -0.5)
        p1 = 1 / (1 + math.exp(-d))
        odds = {key: {"1": math.log(p1), "2": math.log(1 - p1)} for key in BROAD_CRITERIA}
        return Completion(json.dumps(dict.fromkeys(BROAD_CRITERIA, "1")), 10, 4, "judge", odds=odds)

    provider = ScriptedProvider(longer_first)
    table = check_judge(LLM(provider, cache=None), references)

    assert table["first_sentence"]["overall"]["pairs"] == 1  # r2 is one sentence
    assert table["unrelated"]["overall"]["pairs"] == 2
    assert table["first_sentence"]["overall"]["win_rate"] == round(1 / (1 + math.exp(-0.5)), 3)
    assert table["first_sentence"]["overall"]["verdicts_rate"] == 0.5
    unrelated = table["unrelated"]["overall"]  # r1's reference is the shorter of its pair
    assert unrelated["wins_ties_losses"] == [1, 0, 1]
    assert provider.calls == 6


def test_check_judge_needs_reference_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    broad = Path(eval_broad.__file__).parent / "questions" / "python_docs_broad.json"
    argv = ["eval_broad.py", "--run-dir", str(tmp_path), "--check-judge", str(broad)]
    monkeypatch.setattr("sys.argv", argv)
    monkeypatch.setattr(
        eval_broad, "make_llm", lambda *a, **k: LLM(ScriptedProvider(str), cache=None)
    )
    assert eval_broad.main() == 1
    assert "needs at least two questions with a reference answer" in capsys.readouterr().err


def test_a_record_carries_answers_judgements_and_responses_to_a_new_run(tmp_path: Path) -> None:
    first, record, second = tmp_path / "first", tmp_path / "record", tmp_path / "second"
    first.mkdir()
    results_file(first)
    append_jsonl(first / "judged.jsonl", judged("q1", "1", "2"))
    with ResponseCache(first / CACHE_FILE) as cache:
        cache.put(
            "key", Completion(text="a point", prompt_tokens=9, completion_tokens=2, model="m")
        )
    assert eval_broad.save(first, record) == 1
    assert eval_broad.restore(record, second)  # a new run: laid out, broad to be replayed
    for name in ("results.jsonl", "judged.jsonl"):
        assert read_jsonl(second / name) == read_jsonl(first / name)
    with ResponseCache(second / CACHE_FILE) as cache:
        got = cache.get("key")
    assert got is not None and got.text == "a point"
    # a run that holds answers already is never overwritten by a record
    append_jsonl(second / "results.jsonl", {"id": "q9", "config": "naive"})
    assert not eval_broad.restore(record, second)
    assert read_jsonl(second / "results.jsonl")[-1]["id"] == "q9"


def test_a_replayed_configuration_is_asked_again_but_its_row_is_kept(tmp_path: Path) -> None:
    questions, results = results_file(tmp_path)
    before = read_jsonl(results)
    asked: list[tuple[str, str]] = []

    def answer(store: object, embedder: object, q: dict[str, Any], config: str) -> dict[str, Any]:
        asked.append((q["id"], config))
        return {"id": q["id"], "config": config, "seconds": 1.0}

    settings = load_settings(store=f"falkordb-lite://{tmp_path / 'store.db'}")
    ask_each(settings, questions, ["naive", "broad"], results, answer, str, replay=["broad"])
    # broad's three answers again, in the questions' order; naive's one missing answer
    assert asked == [("q1", "broad"), ("q2", "broad"), ("q3", "naive"), ("q3", "broad")]
    assert read_jsonl(results) == [*before, {"id": "q3", "config": "naive", "seconds": 1.0}]
