"""Per-(question, configuration) evaluation records and the resumable results file.

A run directory holds ``results.jsonl``: one JSON record per line, appended and synced
after every question, so an interrupted run resumes where it stopped (a line cut short
by the interruption is ignored, then overwritten by the next append).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from graphmind.core.errors import BadInputError
from graphmind.core.scoring import best_exact_match, best_token_f1, is_correct

RESULTS_FILE = "results.jsonl"


@dataclass(kw_only=True)
class QuestionResult:
    """What one configuration did on one question: answer, scores, retrieval, cost, memory.

    ``recall_first``/``recall_final`` map k to recall@k after the first and the last round
    (None for a question without gold passages); ``profile_coverage`` is the share of the
    judged candidates that carried an evidence profile; ``excluded`` counts candidates the
    planner removed, ``gold_excluded`` the gold passages among them; ``verdicts`` maps
    passage id to its final verdict (used/rejected).
    """

    dataset: str
    config: str
    question_id: str
    position: int
    category: str | None
    query_type: str | None = None
    question: str
    answers: list[str]
    prediction: str
    abstained: bool
    answerable: bool
    em: float
    f1: float
    correct: bool
    recall_first: dict[int, float | None] = field(default_factory=dict)
    recall_final: dict[int, float | None] = field(default_factory=dict)
    profile_coverage: float = 0.0
    excluded: int = 0
    gold_excluded: int = 0  # gold passages among those the planner removed
    llm_calls: int
    tokens: int
    latency_ms: float
    llm_ms: float
    store_ms: float
    decision_id: str | None = None
    rounds: int
    capped: int = 0  # LLM calls whose output ran to their token cap
    verdicts: dict[str, str] = field(default_factory=dict)
    error: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        """(dataset, config, question_id): what identifies a record in a run."""
        return self.dataset, self.config, self.question_id

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (recall keys become strings; :meth:`from_json` restores them)."""
        data = asdict(self)
        data["recall_first"] = {str(k): v for k, v in self.recall_first.items()}
        data["recall_final"] = {str(k): v for k, v in self.recall_final.items()}
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> QuestionResult:
        """Rebuild a record written by :meth:`to_json`; ValueError when it is not one."""
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ValueError(f"unknown result fields: {', '.join(unknown)}")
        values = dict(data)
        try:
            for name in ("recall_first", "recall_final"):
                values[name] = {int(k): v for k, v in values.get(name, {}).items()}
            return cls(**values)
        except (TypeError, AttributeError) as exc:
            raise ValueError(f"not a result record: {exc}") from None


def score(
    prediction: str, answers: Sequence[str], answerable: bool, abstained: bool
) -> tuple[float, float, bool]:
    """(EM, F1, correct) of a prediction; correct means token F1 >= CORRECT_F1.

    On an unanswerable question abstaining is the right answer (1, 1, True) and any
    answer is wrong; on an answerable one abstaining scores zero.
    """
    if not answerable:
        return (1.0, 1.0, True) if abstained else (0.0, 0.0, False)
    if abstained:
        return 0.0, 0.0, False
    return (
        best_exact_match(prediction, answers),
        best_token_f1(prediction, answers),
        is_correct(prediction, answers),
    )


def append_result(run_dir: Path, record: QuestionResult) -> None:
    """Append one record to the run's results file and sync it to disk."""
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / RESULTS_FILE
    _repair_tail(path)
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(record.to_json(), ensure_ascii=False) + "\n")
        out.flush()
        os.fsync(out.fileno())


def load_results(run_dir: Path) -> list[QuestionResult]:
    """Every record of a run (none when it has no results file yet).

    A last line without its newline that does not parse is an interrupted write and is
    skipped; any other bad line raises BadInputError.
    """
    path = run_dir / RESULTS_FILE
    if not path.is_file():
        return []
    lines = path.read_bytes().decode("utf-8", errors="replace").split("\n")
    records: list[QuestionResult] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(QuestionResult.from_json(json.loads(line)))
        except ValueError as exc:  # json.JSONDecodeError is a ValueError
            if number == len(lines):
                break
            raise BadInputError(f"{path}, line {number}: not a result record ({exc})") from None
    return records


def done_keys(run_dir: Path) -> set[tuple[str, str, str]]:
    """The (dataset, config, question_id) of every record already in the run."""
    return {record.key for record in load_results(run_dir)}


def _repair_tail(path: Path) -> None:
    """End the file with a newline: finish a complete last record, drop a cut-off one."""
    if not path.is_file() or path.stat().st_size == 0:
        return
    with path.open("rb+") as f:
        f.seek(-1, os.SEEK_END)
        if f.read(1) == b"\n":
            return
        f.seek(0)
        data = f.read()
        start = data.rfind(b"\n") + 1
        try:
            QuestionResult.from_json(json.loads(data[start:]))
        except ValueError:
            f.truncate(start)
        else:
            f.write(b"\n")
