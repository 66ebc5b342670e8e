"""Blind pairs for a second reader of an evaluation, and their score.

The 1.5B judge leans on position and weighs detail; a person (or any other reader) can
judge the same pairs blind: one system's answer beside each other configuration's (broad's
beside naive's and the loop's; on explanatory questions the loop's beside naive's), the
pairs shuffled, each pair's order drawn at random, no system named, and the manual's own
answer shown where the question file has one.

    python scripts/blind_pairs.py write eval-records/pydocs-broad-kept --out DIR
    python scripts/blind_pairs.py write RUN --system loop --criteria overall \
        --questions scripts/questions/python_docs_explain.json --out DIR
    python scripts/blind_pairs.py score DIR/key.jsonl VERDICTS.jsonl [--record FILE]

``write`` puts ``pairs.md`` (what the reader sees) and ``key.jsonl`` (which answer is the
system's: keep it from the reader) in DIR. Two answers written alike are not shown: they
score as a tie. The reader writes one JSON line per pair shown, ``{"pair": "P01",
"comprehensiveness": "1", "diversity": "tie", "empowerment": "2", "overall": "1",
"reason": "..."}`` (the criteria asked). ``score`` prints the system's wins, ties and
losses per criterion against each configuration (the share won, ties half) and, with
``--record``, writes the key and the verdicts together (a record's ``blind.jsonl``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from scripts.benchkit import BROAD, BROAD_CRITERIA, BROAD_QUESTIONS, read_jsonl

SEED = 20261202


class BlindError(Exception):
    """A file that is missing or does not say what it should."""


def write(
    record: Path,
    out: Path,
    questions: Path,
    seed: int,
    system: str = BROAD,
    criteria: tuple[str, ...] = BROAD_CRITERIA,
) -> int:
    """Write the shuffled pairs and their key into ``out``; returns how many pairs (those
    shown and those written alike)."""
    asked = {q["id"]: q for q in json.loads(questions.read_text(encoding="utf-8"))}
    rows = {(r["id"], r["config"]): r for r in _jsonl(record / "results.jsonl")}
    others = list(dict.fromkeys(c for _, c in rows if c != system))
    pairs = [
        (qid, other)
        for qid in sorted(asked)
        for other in others
        if (qid, system) in rows and (qid, other) in rows
    ]
    if not pairs:
        raise BlindError(f"{record}: no question has {system}'s answer beside another's")
    rng = random.Random(seed)
    rng.shuffle(pairs)
    out.mkdir(parents=True, exist_ok=True)
    shown, key = [], []
    for n, (qid, other) in enumerate(pairs, start=1):
        system_first = rng.random() < 0.5
        answers = [rows[(qid, system)]["full_answer"], rows[(qid, other)]["full_answer"]]
        one, two = answers if system_first else answers[::-1]
        pair = f"P{n:02d}"
        same = _alike(one) == _alike(two)
        key.append(
            {
                "pair": pair,
                "id": qid,
                "other": other,
                "system": system,
                "system_is": "1" if system_first else "2",
                "criteria": list(criteria),
                "same": same,
            }
        )
        if same:
            continue
        reference = asked[qid].get("reference")
        told = f"The manual's own answer, for reference:\n{reference}\n\n" if reference else ""
        shown.append(
            f"## {pair}\n\nQuestion: {asked[qid]['question']}\n\n{told}"
            f"Answer 1:\n{one}\n\nAnswer 2:\n{two}\n"
        )
    (out / "pairs.md").write_text("\n".join(shown), encoding="utf-8")
    (out / "key.jsonl").write_text("".join(json.dumps(k) + "\n" for k in key), encoding="utf-8")
    return len(pairs)


def _alike(answer: str) -> str:
    return " ".join(answer.split()).casefold()


def score(key_file: Path, verdicts_file: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The system's numbers per configuration and criterion, and the unblinded rows (a
    key written before keys named their system is broad's, on broad's criteria)."""
    key = {k["pair"]: k for k in _jsonl(key_file)}
    said = {v.get("pair"): v for v in _jsonl(verdicts_file)}
    missing = sorted(p for p, k in key.items() if p not in said and not k.get("same"))
    if missing:
        raise BlindError(f"{verdicts_file}: no verdict for {', '.join(missing[:5])}")
    counts: dict[tuple[str, str, str], Counter[str]] = {}
    rows = []
    for pair, k in key.items():
        system = k.get("system", BROAD)
        system_is = k.get("system_is", k.get("broad_is"))
        verdict = said.get(pair, {"reason": "written alike"})
        row = {**k, "reason": str(verdict.get("reason", ""))}
        for criterion in k.get("criteria", BROAD_CRITERIA):
            choice = "tie" if k.get("same") else str(verdict.get(criterion, "")).strip().lower()
            if choice not in ("1", "2", "tie"):
                raise BlindError(
                    f"{verdicts_file}: {pair} {criterion} is {choice!r}, not 1, 2 or tie"
                )
            outcome = "tie" if choice == "tie" else "win" if choice == system_is else "loss"
            counts.setdefault((system, k["other"], criterion), Counter())[outcome] += 1
            row[criterion] = outcome
        rows.append(row)
    table: dict[str, Any] = {}
    for (system, other, criterion), c in sorted(counts.items()):
        n = sum(c.values())
        table.setdefault(f"{system}_vs_{other}", {})[criterion] = {
            "wins_ties_losses": [c["win"], c["tie"], c["loss"]],
            "won": round((c["win"] + c["tie"] / 2) / n, 3),
        }
    return table, rows


def _jsonl(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSON-lines file that must be there (a line that is not JSON is
    skipped, so a pair it held shows up as missing)."""
    if not path.is_file():
        raise BlindError(f"{path}: no such file")
    return read_jsonl(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("write", help="the shuffled pairs and their key")
    make.add_argument("record", type=Path, help="a run or its record (its results.jsonl)")
    make.add_argument("--out", type=Path, required=True)
    make.add_argument("--questions", type=Path, default=BROAD_QUESTIONS)
    make.add_argument("--seed", type=int, default=SEED)
    make.add_argument("--system", default=BROAD, help="the configuration scored")
    make.add_argument(
        "--criteria", default=",".join(BROAD_CRITERIA), help="comma-separated, asked per pair"
    )
    count = sub.add_parser("score", help="the system's share of a reader's verdicts")
    count.add_argument("key", type=Path)
    count.add_argument("verdicts", type=Path)
    count.add_argument("--record", type=Path, help="write key and verdicts together here")
    args = parser.parse_args()
    try:
        if args.command == "write":
            criteria = tuple(c.strip() for c in args.criteria.split(",") if c.strip())
            if not criteria:
                parser.error("--criteria names no criterion")
            n = write(args.record, args.out, args.questions, args.seed, args.system, criteria)
            key = args.out / "key.jsonl"
            print(f"{n} pairs: {args.out / 'pairs.md'} (keep {key} from the reader)")
            return 0
        table, rows = score(args.key, args.verdicts)
    except (BlindError, OSError, ValueError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.record:
        args.record.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    print(json.dumps(table, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
