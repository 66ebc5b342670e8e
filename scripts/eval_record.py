"""Carry an evaluation run to another machine: save its record, restore it, resume it.

    python scripts/eval_record.py save eval-runs/conv30 records/conv30
    python scripts/eval_record.py restore records/conv30 eval-runs/conv30
    graphmind eval locomo --run-dir eval-runs/conv30 ...   # the run's own options

The record holds the results and the model's responses, not the stores: the resumed run
builds the corpus again and replays the recorded answers into its stores from the
responses (no model call when the prompts are the same), then asks the questions left.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from graphmind.core.errors import GraphMindError
from graphmind.eval.carry import restore_record, save_record


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="action", required=True)
    save = sub.add_parser("save", help="write a run's record")
    save.add_argument("run_dir", type=Path)
    save.add_argument("record", type=Path)
    restore = sub.add_parser("restore", help="lay a record out as a run directory to resume")
    restore.add_argument("record", type=Path)
    restore.add_argument("run_dir", type=Path)
    restore.add_argument("--data", type=Path, help="benchmark data folder (default: shared)")
    args = parser.parse_args()
    try:
        if args.action == "save":
            count = save_record(args.run_dir, args.record)
            print(f"{args.record}: {count} model responses")
        else:
            count = restore_record(args.record, args.run_dir, args.data)
            print(f"{args.run_dir}: {count} model responses restored; resume with graphmind eval")
    except GraphMindError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
