"""Every command says the truth about what it did: options that would do something else
than asked are refused, "nothing was built" is said plainly, errors under --json are
JSON, progress reaches logs, piped output is never hard-wrapped, doctor fails on any
problem, and the README's settings table lists every setting the code reads."""

from __future__ import annotations

import io
import json
import os
import random
import re
import shutil
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from openai_server import FakeServer, completion_body, error_body
from rich.console import Console

from buildkit import CORPUS, scripted_llm
from conftest import NEO4J_URI
from graphmind.cli_progress import LineProgress, RichProgress
from graphmind.config import CONFIG_ENV, SECTIONS, Settings
from graphmind.eval.datasets import DATA_ENV
from helpers.cli import graphmind

REPO = Path(__file__).resolve().parents[1]
HASH = {"GRAPHMIND_EMBEDDER": "hash:384"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("build", "x", "--limit", "-1"), "-1 is not in the range x>=1"),
        (("build", "x", "--limit", "0"), "0 is not in the range x>=1"),
        (("build", "x", "--batch-docs", "0"), "x>=1"),
        (("build", "x", "--chunk-size", "4"), "x>=8"),
        (("build", "x", "--chunk-size", "64", "--chunk-overlap", "64"), "less than --chunk-size"),
        (("build", "x", "--chunk-overlap", "-1"), "x>=0"),
        (("build", "x", "--max-community-size", "0"), "x>=2"),
        (("build", "x", "--encoding", "klingon"), "unknown encoding 'klingon'"),
        (("communities", "--levels", "0"), "x>=1"),
        (("communities", "--max-size", "0"), "x>=2"),
        (("communities", "--resolution", "-1"), "x>0"),
        (("communities", "--resolution", "0"), "x>0"),
        (("eval", "musique", "--seed", "-1"), "x>=0"),
        (("documents", "list", "--limit", "0"), "x>=1"),
    ],
)
def test_numeric_options_are_validated(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    result = graphmind(tmp_path, *args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / ".graphmind").exists()  # refused before anything ran
    as_json = graphmind(tmp_path, *args, "--json")
    assert as_json.returncode == 2
    error = json.loads(as_json.stdout)
    assert message in error["error"] and error["exit_code"] == 2


def test_errors_under_json_are_json_on_stdout(tmp_path: Path) -> None:
    result = graphmind(tmp_path, "--store", "mysql://x", "doctor", "--json")
    assert result.returncode == 2 and result.stderr == ""
    error = json.loads(result.stdout)
    assert error["type"] == "ConfigError" and "unsupported store URI" in error["error"]
    cypher = graphmind(tmp_path, "cypher", "MATCH (n RETURN n", "--json", env=HASH)
    assert cypher.returncode == 1 and "rejected the query" in json.loads(cypher.stdout)["error"]
    plain = graphmind(tmp_path, "cypher", "MATCH (n RETURN n", env=HASH)
    assert plain.returncode == 1 and plain.stdout == "" and "error:" in plain.stderr


def _only_bad(root: Path) -> Path:
    root.mkdir()
    (root / "binary.txt").write_bytes(random.Random(1).randbytes(2048))
    return root


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        (_only_bad, (), "nothing was built: 1 file(s) or entries not read"),
        (lambda p: p.mkdir() or p, (), "no supported file (.txt, .md"),
        (
            lambda p: shutil.copytree(CORPUS, p) and p,
            ("--include", "*.xyz"),
            "matches --include *.xyz",
        ),
        (
            lambda p: shutil.copytree(CORPUS, p) and p,
            ("--text-field", "nope", "--include", "*.json"),
            "no record has the text field 'nope'",
        ),
    ],
)
def test_nothing_built_is_said_plainly(
    tmp_path: Path, setup: Any, args: tuple[str, ...], message: str
) -> None:
    folder = setup(tmp_path / "corpus")
    result = graphmind(tmp_path, "build", str(folder), "--extract", "none", *args, env=HASH)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "nothing was built" in result.stderr
    assert message in result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    as_json = graphmind(
        tmp_path, "build", str(folder), "--extract", "none", *args, "--json", env=HASH
    )
    assert as_json.returncode == 1
    report = json.loads(as_json.stdout)
    assert report["nothing_built"] is True and report["error"].startswith("nothing was built")


def test_a_rebuild_with_nothing_new_is_not_an_error(tmp_path: Path) -> None:
    shutil.copytree(CORPUS, tmp_path / "corpus")
    args = ("build", "corpus", "--extract", "none")
    assert graphmind(tmp_path, *args, env=HASH).returncode == 0
    again = graphmind(tmp_path, *args, env=HASH)
    assert again.returncode == 0 and "nothing was built" not in again.stderr


def test_a_symlink_loop_is_called_one(tmp_path: Path) -> None:
    os.symlink("loop", tmp_path / "loop")
    result = graphmind(tmp_path, "build", "loop", "--extract", "none", env=HASH)
    assert result.returncode == 2 and "symbolic link loop: loop" in result.stderr


def test_progress_lines_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    shutil.copytree(CORPUS, tmp_path / "corpus")
    result = graphmind(tmp_path, "build", "corpus", "--extract", "none", env=HASH)
    assert result.returncode == 0
    assert re.search(r"^documents: 5/5 done in \d+s$", result.stderr, re.M), result.stderr
    assert re.search(r"^embeddings: \d+/\d+ done in", result.stderr, re.M)
    quiet = graphmind(tmp_path, "build", "corpus", "--extract", "none", "--json", env=HASH)
    assert quiet.stderr == ""


def test_line_progress_reports_rate_and_time_left() -> None:
    buffer = io.StringIO()
    progress = LineProgress(Console(file=buffer, width=200), interval=0.0)
    progress.start("LLM calls", 4)
    progress.advance("LLM calls", 1)
    progress.advance("LLM calls", 3)
    progress.start("nothing", 0)
    lines = buffer.getvalue().splitlines()
    assert lines[0] == "LLM calls: 0/4 started"
    assert re.fullmatch(r"LLM calls: 1/4 \d+s elapsed, [\d.]+/s(, about \d+s left)?", lines[1])
    assert re.fullmatch(r"LLM calls: 4/4 done in \d+s", lines[2])
    assert len(lines) == 3  # a stage with nothing to do says nothing


def test_rich_bars_have_fixed_totals_and_time_left() -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=120)
    with RichProgress(console) as progress:
        progress.start("embeddings", 10)
        progress.advance("embeddings", 10)
        progress.start("embeddings", 4)  # the next batch: its own total, from zero
        progress.advance("embeddings", 1)
        task = progress._bars.tasks[0]
        assert (task.total, task.completed) == (4, 1)
    assert "ETA" in buffer.getvalue()


def test_piped_output_is_never_hard_wrapped(tmp_path: Path) -> None:
    deep = tmp_path / ("a-folder-with-a-rather-long-name-" * 4) / "corpus"
    deep.mkdir(parents=True)
    (deep / "binary.txt").write_bytes(random.Random(2).randbytes(512))
    shutil.copy(CORPUS / "curie.txt", deep / "curie.txt")
    result = graphmind(tmp_path, "build", str(deep), "--extract", "none", env=HASH)
    assert result.returncode == 0
    line = next(ln for ln in result.stdout.splitlines() if "binary.txt:" in ln)
    assert f"{deep.relative_to(tmp_path)}/binary.txt: not text" in line and len(line) > 160
    store = tmp_path / ("another-long-folder-name-" * 5) / "graph.db"
    doctor = graphmind(tmp_path, "--store", f"falkordb-lite://{store}", "doctor", env=HASH)
    assert str(store) in doctor.stdout


def test_doctor_fails_on_any_problem(tmp_path: Path) -> None:
    invalid = graphmind(
        tmp_path, "doctor", "--json", env={**HASH, "GRAPHMIND_LLM_PROVIDER": "openai"}
    )
    assert invalid.returncode == 1
    report = json.loads(invalid.stdout)
    assert report["ok"] is False
    assert any(p.startswith("LLM: ") and "GRAPHMIND_LLM_MODEL" in p for p in report["problems"])
    none = graphmind(
        tmp_path, "doctor", env={**HASH, "GRAPHMIND_MODEL_DIR": str(tmp_path / "no-models")}
    )
    assert none.returncode == 1 and "no LLM" in none.stdout and "fetch_model.py" in none.stdout
    embedder = graphmind(
        tmp_path,
        "doctor",
        "--json",
        env={"GRAPHMIND_EMBEDDER": str(tmp_path / "no-such-model"), "GRAPHMIND_EMBEDDING_DIM": "8"},
    )
    assert embedder.returncode == 1
    assert any(p.startswith("embedder: ") for p in json.loads(embedder.stdout)["problems"])
    unknown = graphmind(
        tmp_path, "doctor", "--json", env={"GRAPHMIND_EMBEDDER": "onnx:no-such-model"}
    )
    assert unknown.returncode == 1  # a problem listed, not an error that stops the report
    problems = json.loads(unknown.stdout)["problems"]
    assert problems[0].startswith("embedder: embedding model 'no-such-model' is not available")


def test_doctor_asks_the_endpoint_for_real(
    tmp_path: Path, serve: Callable[..., FakeServer]
) -> None:
    live = serve(lambda body: (200, {}, completion_body('{"ok": true}')))
    env = {**HASH, "GRAPHMIND_LLM_BASE_URL": live.base_url, "GRAPHMIND_LLM_MODEL": "test-model"}
    healthy = graphmind(tmp_path, "doctor", "--json", env=env)
    assert healthy.returncode == 0, healthy.stdout
    assert [r["model"] for r in live.requests] == ["test-model"]
    assert live.requests[0]["max_tokens"] == 16

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        dead_url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    dead = graphmind(tmp_path, "doctor", "--json", env={**env, "GRAPHMIND_LLM_BASE_URL": dead_url})
    assert dead.returncode == 1
    problems = json.loads(dead.stdout)["problems"]
    assert len(problems) == 1
    assert problems[0].startswith(f"LLM: {dead_url} failed 2 times; last error: ")
    assert "is the server running" in problems[0]

    refused = serve(lambda body: (401, {}, error_body("Incorrect API key provided")))
    wrong_key = graphmind(
        tmp_path, "doctor", env={**env, "GRAPHMIND_LLM_BASE_URL": refused.base_url}
    )
    assert wrong_key.returncode == 1
    assert "HTTP 401: Incorrect API key provided (check GRAPHMIND_LLM_API_KEY)" in wrong_key.stdout


@pytest.mark.neo4j
@pytest.mark.skipif(not NEO4J_URI, reason="needs GRAPHMIND_TEST_NEO4J_URI")
def test_an_unset_neo4j_password_is_named(tmp_path: Path) -> None:
    assert NEO4J_URI
    result = graphmind(tmp_path, "--store", NEO4J_URI, "doctor", env=HASH)
    assert result.returncode == 1
    assert "no password is set; set GRAPHMIND_NEO4J_PASSWORD" in result.stdout


def test_eval_json_prints_the_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from graphmind import factories as llm_module
    from graphmind.cli import main
    from helpers.eval import FIXTURES, responder

    llm = scripted_llm(tmp_path / "llm.sqlite", responder)
    monkeypatch.setattr(llm_module, "make_llm", lambda *_a, **_k: llm)
    monkeypatch.chdir(tmp_path)
    args = ["eval", "musique", "--data", str(FIXTURES), "--limit", "2", "--configs", "naive"]
    result = CliRunner().invoke(main, [*args, "--json"], env=HASH)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert len(data["records"]) == 2 and result.stderr == ""
    bad = CliRunner().invoke(main, ["eval", "musique", "--questions", "missing.json", "--json"])
    assert bad.exit_code == 3
    message = json.loads(bad.stdout)["error"]
    assert "missing.json does not exist" in message and DATA_ENV not in message


def test_readme_lists_every_setting_the_code_reads() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    rows = [ln for ln in section.splitlines() if ln.startswith("| `GRAPHMIND_")]
    documented: dict[str, str] = {}
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        names = re.findall(r"`(GRAPHMIND_[A-Z0-9_]+)`", cells[0])
        assert len(names) == 1, f"one setting per row: {row}"
        documented[names[0]] = cells[1]
    flat = {name: f for name, f in Settings.model_fields.items() if name not in SECTIONS}
    read_by_code = {f"GRAPHMIND_{name.upper()}" for name in flat}  # sections: test_settings
    read_by_code |= {CONFIG_ENV, DATA_ENV}
    for path in (REPO / "graphmind").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        read_by_code |= set(re.findall(r"environ(?:\.get)?\(\s*\"(GRAPHMIND_[A-Z0-9_]+)", text))
        read_by_code |= set(re.findall(r"_ENV = \"(GRAPHMIND_[A-Z0-9_]+)\"", text))
    assert set(documented) == read_by_code
    for name, field in flat.items():
        default = field.default
        if default is not None and not isinstance(default, bool):
            cell = documented[f"GRAPHMIND_{name.upper()}"]
            assert f"`{default}`" in cell, f"GRAPHMIND_{name.upper()}: default {default!r}"
