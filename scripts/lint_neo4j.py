"""Lint every query Neo4j will run with Neo4j's own Cypher parser.

Renders each query the Neo4j backend can load (shared files plus ``cypher/neo4j/``
overrides, templates filled with sample schema names) and hands them to
``scripts/lint_cypher.mjs`` (npm ``@neo4j-cypher/language-support``). Fails on any
diagnostic. Usage::

    python scripts/lint_neo4j.py [--root DIR ...]

With no ``--root``: the package's ``cypher/`` and the contract tests' ``tests/cypher/``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from graphmind.core.errors import GraphMindError
from graphmind.store.registry import QueryRegistry, default_root

SCRIPTS = Path(__file__).resolve().parent
REPO = SCRIPTS.parent
LINTER = SCRIPTS / "lint_cypher.mjs"


def collect(roots: list[Path]) -> list[dict[str, str]]:
    """Every Neo4j query under ``roots`` as ``{name, text}``, rendered for linting."""
    registry = QueryRegistry("neo4j", roots)
    return [{"name": str(registry.path(n)), "text": registry.sample(n)} for n in registry.names()]


def ensure_node_modules() -> None:
    """Install the pinned linter package on first use."""
    if (SCRIPTS / "node_modules" / "@neo4j-cypher" / "language-support").is_dir():
        return
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("lint_neo4j: npm is not installed (needed for Neo4j's Cypher parser)")
    subprocess.run([npm, "ci", "--prefix", str(SCRIPTS), "--no-audit", "--no-fund"], check=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", action="append", type=Path, help="a cypher/ folder to lint")
    args = parser.parse_args(argv)
    roots = args.root or [default_root(), REPO / "tests" / "cypher"]
    try:
        queries = collect([r.resolve() for r in roots])
    except GraphMindError as exc:
        print(f"lint_neo4j: {exc}", file=sys.stderr)
        return 1
    if not queries:
        print("lint_neo4j: no queries found under " + ", ".join(map(str, roots)), file=sys.stderr)
        return 1
    ensure_node_modules()
    node = shutil.which("node")
    if node is None:
        sys.exit("lint_neo4j: node is not installed")
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(queries, handle)
    try:
        return subprocess.run([node, str(LINTER), handle.name], check=False).returncode
    finally:
        Path(handle.name).unlink(missing_ok=True)


if __name__ == "__main__":
    sys.exit(main())
