"""Carrying an evaluation run to another machine: its record, without its stores.

A record is what a run asked and answered (``run.json``, ``results.jsonl``,
``consistency.jsonl``) and the model's responses (the run's response cache, as gzipped
JSON lines): a few hundred kilobytes where the stores are megabytes. Restored into a new
run directory, the next ``graphmind eval`` with the same options builds the corpus again,
replays the recorded answers into each configuration's store from the responses (see
``runner._replay``), so the memory is what it was, and goes on with the questions left.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

from graphmind.core.errors import BadInputError
from graphmind.eval.records import RESULTS_FILE
from graphmind.eval.runner import CONSISTENCY_FILE, RUN_FILE
from graphmind.factories import CACHE_FILE
from graphmind.llm.cache import ResponseCache

RECORD_FILES = (RUN_FILE, RESULTS_FILE, CONSISTENCY_FILE)
RESPONSES_FILE = "responses.jsonl.gz"


def save_record(run_dir: Path, dest: Path) -> int:
    """Write the record of ``run_dir`` into ``dest`` (replacing its files); returns how
    many model responses it holds."""
    if not (run_dir / RUN_FILE).is_file():
        raise BadInputError(f"{run_dir} holds no evaluation run ({RUN_FILE} is missing)")
    dest.mkdir(parents=True, exist_ok=True)
    for name in RECORD_FILES:
        if (run_dir / name).is_file():
            shutil.copyfile(run_dir / name, dest / name)
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


def restore_record(src: Path, run_dir: Path) -> int:
    """Lay the record in ``src`` out as a run directory to resume (one that holds no
    results yet); returns how many model responses were new to its cache."""
    if not (src / RUN_FILE).is_file() or not (src / RESPONSES_FILE).is_file():
        raise BadInputError(f"{src} is not an evaluation record ({RUN_FILE} or {RESPONSES_FILE})")
    if (run_dir / RESULTS_FILE).is_file():
        raise BadInputError(f"{run_dir} already holds results; restore into a new run directory")
    run_dir.mkdir(parents=True, exist_ok=True)
    for name in RECORD_FILES:
        if (src / name).is_file():
            shutil.copyfile(src / name, run_dir / name)
    with gzip.open(src / RESPONSES_FILE, "rt", encoding="utf-8") as lines:
        rows = (json.loads(line) for line in lines if line.strip())
        with ResponseCache(run_dir / CACHE_FILE) as cache:
            return cache.load(rows)
