"""Evaluation records made for tests."""

from __future__ import annotations

from typing import Any

from graphmind.eval.records import QuestionResult, score


def make_result(
    question_id: str = "q1",
    *,
    config: str = "naive",
    prediction: str = "Rosario",
    answers: tuple[str, ...] = ("Rosario",),
    answerable: bool = True,
    abstained: bool = False,
    **overrides: Any,
) -> QuestionResult:
    """A record scored with :func:`score`; other fields take plain defaults or ``overrides``."""
    em, f1, correct = score(prediction, answers, answerable, abstained)
    values: dict[str, Any] = {
        "dataset": "musique",
        "config": config,
        "question_id": question_id,
        "position": 0,
        "category": "2hop",
        "question": f"question {question_id}?",
        "answers": list(answers),
        "prediction": prediction,
        "abstained": abstained,
        "answerable": answerable,
        "em": em,
        "f1": f1,
        "correct": correct,
        "llm_calls": 1,
        "tokens": 100,
        "latency_ms": 1000.0,
        "llm_ms": 800.0,
        "store_ms": 100.0,
        "rounds": 1,
    }
    values.update(overrides)
    return QuestionResult(**values)
