"""Write the MuSiQue question files of the held-out loop measurement (docs/measurements.md).

MuSiQue dev has 292 questions here. The loop's rules were tuned on ``graphmind eval
musique --limit 140`` (seed 0) and checked on ``--limit 100 --seed 3642``; this writes
the 86 questions outside both (``musique-unseen-86.json``) and those 86 with 14 of the
checked 100 (``musique-100.json``), as question files for ``graphmind eval musique
--questions FILE --limit N``. The first record of each file carries every paragraph of
all 292 records (only its own supporting ones marked), so the corpus the evaluation
derives is the same 4,543 passages as the whole set's and the runs compare.

    .venv/bin/python scripts/musique_holdout.py [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

from graphmind.eval.datasets import MUSIQUE_QUESTIONS, default_data_root, load_dataset

QUESTIONS = 292
TUNED = (0, 140)  # (seed, limit) of the questions the rules were tuned on
CHECKED = (3642, 100)  # (seed, limit) of the questions they were checked on
EXTRA = (7, 14)  # (seed, count) drawn from the checked ones to make 100


def _drawn(root: Path, seed: int, limit: int) -> set[str]:
    """The ids ``graphmind eval musique --seed --limit`` asks."""
    return {q.id for q in load_dataset("musique", root, limit=limit, seed=seed).questions}


def _file(records: list[dict[str, Any]], chosen: list[int]) -> list[dict[str, Any]]:
    """The chosen records in file order, the first carrying every record's paragraphs."""
    out = [dict(records[i]) for i in sorted(chosen)]
    first = out[0]
    own = {(p["title"], p["paragraph_text"]) for p in first["paragraphs"] if p["is_supporting"]}
    every = [p for r in records for p in r["paragraphs"]]
    first["paragraphs"] = [
        dict(p, idx=k, is_supporting=(p["title"], p["paragraph_text"]) in own)
        for k, p in enumerate(every)
    ]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("."), help="folder for the two files")
    args = parser.parse_args()
    root = default_data_root()
    records: list[dict[str, Any]] = json.loads(
        (root / MUSIQUE_QUESTIONS).read_text(encoding="utf-8")
    )
    if len(records) != QUESTIONS:
        raise SystemExit(f"expected {QUESTIONS} MuSiQue questions, found {len(records)}")
    tuned, checked_ids = _drawn(root, *TUNED), _drawn(root, *CHECKED)
    checked = [i for i, r in enumerate(records) if r["id"] in checked_ids]
    unseen = [i for i, r in enumerate(records) if r["id"] not in tuned | checked_ids]
    extra = random.Random(EXTRA[0]).sample(checked, EXTRA[1])
    args.out.mkdir(parents=True, exist_ok=True)
    for name, chosen in (
        (f"musique-unseen-{len(unseen)}.json", unseen),
        ("musique-100.json", unseen + sorted(extra)),
    ):
        path = args.out / name
        path.write_text(json.dumps(_file(records, chosen)), encoding="utf-8")
        print(f"{path}: {len(chosen)} questions")


if __name__ == "__main__":
    main()
