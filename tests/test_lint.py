"""The Neo4j lint: every product query passes; a broken query file fails it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LINT = REPO / "scripts" / "lint_neo4j.py"

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None and not os.environ.get("CI"),
    reason="the Neo4j lint needs node and npm",
)


def lint(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(LINT), *args], capture_output=True, text=True, timeout=300
    )


def test_every_neo4j_query_passes_the_lint() -> None:
    result = lint()
    assert result.returncode == 0, result.stdout + result.stderr
    assert ": 0 diagnostics" in result.stdout


def test_a_broken_query_file_fails_the_lint(tmp_path: Path) -> None:
    shutil.copytree(REPO / "cypher", tmp_path / "cypher")
    (tmp_path / "cypher" / "store" / "broken.cypher").write_text("MATCH (n:Chunk RETURN n\n")
    (tmp_path / "cypher" / "neo4j" / "store" / "unknown.cypher").write_text(
        "CALL db.index.vector.queryNodez($index, $k, $v) YIELD node RETURN node\n"
    )
    result = lint("--root", str(tmp_path / "cypher"))
    assert result.returncode == 1
    assert "broken.cypher:1:" in result.stdout and "error" in result.stdout
    assert "queryNodez is not present" in result.stdout
    assert "2 diagnostics" in result.stdout or "3 diagnostics" in result.stdout
