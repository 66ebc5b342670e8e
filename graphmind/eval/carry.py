"""Carrying an evaluation run to another machine: its record, without its stores.

A record is what a run asked and answered (``run.json``, ``results.jsonl``,
``consistency.jsonl``) and the model's responses (the run's response cache, as gzipped
JSON lines): a few hundred kilobytes where the stores are megabytes. It holds no benchmark
text: each result names its question by id, and restoring reads the question and its gold
answers from the dataset again (which the resumed run needs anyway). Restored into a new
run directory, the next ``graphmind eval`` with the same options builds the corpus again,
replays the recorded answers into each configuration's store from the responses (see
``runner._replay``), so the memory is what it was, and goes on with the questions left.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

from graphmind.core.errors import BadInputError
from graphmind.eval.datasets import default_data_root, load_dataset
from graphmind.eval.records import RESULTS_FILE, QuestionResult, append_result, load_results
from graphmind.eval.rundir import CONSISTENCY_FILE, RUN_FILE, write_identity
from graphmind.factories import CACHE_FILE
from graphmind.llm.cache import ResponseCache

RECORD_FILES = (CONSISTENCY_FILE,)  # copied as they are; run.json is rewritten (_portable)
DATA_MARK = "DATA/"  # a question file under the benchmark data, recorded without its folder
RESPONSES_FILE = "responses.jsonl.gz"
DATA_FIELDS = ("question", "answers")  # the benchmark's own text, read from it on restore


def save_record(run_dir: Path, dest: Path) -> int:
    """Write the record of ``run_dir`` into ``dest`` (replacing its files); returns how
    many model responses it holds."""
    if not (run_dir / RUN_FILE).is_file():
        raise BadInputError(f"{run_dir} holds no evaluation run ({RUN_FILE} is missing)")
    dest.mkdir(parents=True, exist_ok=True)
    for name in RECORD_FILES:
        if (run_dir / name).is_file():
            shutil.copyfile(run_dir / name, dest / name)
    identity = json.loads((run_dir / RUN_FILE).read_text(encoding="utf-8"))
    write_identity(dest, _portable(identity, default_data_root()))
    rows = [_without_data(r.to_json()) for r in load_results(run_dir)]  # a cut-off last line
    (dest / RESULTS_FILE).write_text(  # of a killed run is left out, as a resume does
        "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), "utf-8"
    )
    return save_responses(run_dir, dest)


def save_responses(run_dir: Path, dest: Path) -> int:
    """Write the model responses cached in ``run_dir`` into ``dest`` (gzipped JSON lines);
    returns how many."""
    count = 0
    # mtime 0: saving the same responses twice writes the same bytes
    with (
        ResponseCache(run_dir / CACHE_FILE) as cache,
        (dest / RESPONSES_FILE).open("wb") as raw,
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out,
    ):
        for row in cache.dump():
            out.write((json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8"))
            count += 1
    return count


def restore_responses(src: Path, run_dir: Path) -> int:
    """Load the responses saved in ``src`` into the response cache of ``run_dir``;
    returns how many were new to it."""
    try:
        with (
            gzip.open(src / RESPONSES_FILE, "rt", encoding="utf-8") as lines,
            ResponseCache(run_dir / CACHE_FILE) as cache,
        ):
            return cache.load(json.loads(line) for line in lines if line.strip())
    except (OSError, EOFError, ValueError, KeyError, TypeError) as exc:
        raise BadInputError(f"{src / RESPONSES_FILE} is damaged ({exc!r})") from None


def restore_record(src: Path, run_dir: Path, data_root: Path | None = None) -> int:
    """Lay the record in ``src`` out as a run directory to resume (one that holds no
    results yet), its questions and gold answers read from the benchmark data under
    ``data_root`` (default: the shared data); returns how many model responses were new
    to its cache."""
    if not (src / RUN_FILE).is_file() or not (src / RESPONSES_FILE).is_file():
        raise BadInputError(f"{src} is not an evaluation record ({RUN_FILE} or {RESPONSES_FILE})")
    if (run_dir / RESULTS_FILE).is_file():
        raise BadInputError(f"{run_dir} already holds results; restore into a new run directory")
    root = data_root or default_data_root()
    identity = _local(json.loads((src / RUN_FILE).read_text(encoding="utf-8")), root)
    questions = identity.get("questions")
    dataset = load_dataset(
        identity["dataset"],
        data_root,
        limit=identity.get("limit"),
        seed=identity.get("seed", 0),
        path=None if questions is None else Path(questions),
        subset=identity.get("subset"),
    )
    asked = {q.id: q for q in dataset.questions}
    results = []
    path = src / RESULTS_FILE
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    for number, line in enumerate((line for line in text.splitlines() if line.strip()), 1):
        try:
            row = json.loads(line)
            question = asked.get(row.get("question_id"))
            if question is None:
                raise BadInputError(
                    f"{src}: question {row.get('question_id')!r} is not in the run's "
                    f"{dataset.name} questions ({dataset.source})"
                )
            data = {"question": question.question, "answers": question.answers}
            results.append(QuestionResult.from_json(row | data))
        except (ValueError, AttributeError) as exc:  # JSONDecodeError is a ValueError
            raise BadInputError(f"{path}, result {number}: not a result record ({exc})") from None
    run_dir.mkdir(parents=True, exist_ok=True)
    # the responses first: a damaged record leaves no results to resume from
    added = restore_responses(src, run_dir)
    for name in RECORD_FILES:
        if (src / name).is_file():
            shutil.copyfile(src / name, run_dir / name)
    write_identity(run_dir, identity)
    for result in results:
        append_result(run_dir, result)
    return added


def _portable(identity: dict[str, Any], data_root: Path) -> dict[str, Any]:
    """The run's identity with a question file under ``data_root`` named ``DATA/...``: a
    record names no folder of the machine that made it."""
    questions = identity.get("questions")
    if not questions:
        return identity
    try:
        inside = Path(questions).resolve().relative_to(data_root.resolve())
    except ValueError:  # a file of the user's own, outside the benchmark data
        return identity
    return identity | {"questions": DATA_MARK + inside.as_posix()}


def _local(identity: dict[str, Any], data_root: Path) -> dict[str, Any]:
    """The recorded identity with ``DATA/...`` read under this machine's ``data_root``, so
    the resumed run's command names the file where it is here."""
    questions = identity.get("questions")
    if isinstance(questions, str) and questions.startswith(DATA_MARK):
        return identity | {"questions": str(data_root / questions.removeprefix(DATA_MARK))}
    return identity


def _without_data(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in DATA_FIELDS}
