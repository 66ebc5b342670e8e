"""The local model's crash-proof smoke test: a crash of llama.cpp (as a native build does
on CPUs with AMX) is reported by ``graphmind doctor`` as one line that says how to fix it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from graphmind.llm.smoke import check_local_model
from helpers.cli import graphmind

CRASHING_LLAMA = textwrap.dedent(
    """
    import os, signal

    class Llama:
        def __init__(self, *args, **kwargs):
            os.kill(os.getpid(), signal.SIGSEGV)
    """
)


def crashing_llama_cpp(root: Path) -> Path:
    """A ``llama_cpp`` stand-in that dies with SIGSEGV when a model is loaded."""
    package = root / "fake" / "llama_cpp"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(CRASHING_LLAMA)
    return package.parent


def test_doctor_reports_a_crashing_local_model_in_one_line(tmp_path: Path) -> None:
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF" + bytes(64))
    env = {
        "PYTHONPATH": str(crashing_llama_cpp(tmp_path)),
        "GRAPHMIND_LLM_GGUF_PATH": str(gguf),
        "GRAPHMIND_EMBEDDER": "hash:384",
    }
    shown = graphmind(tmp_path, "doctor", env=env)
    assert shown.returncode == 1
    assert "Traceback" not in shown.stdout + shown.stderr
    problem = "llama.cpp crashed (SIGSEGV) running the local model model.gguf"
    assert problem in " ".join(shown.stdout.split())
    as_json = graphmind(tmp_path, "doctor", "--json", env=env)
    assert as_json.returncode == 1
    problems = json.loads(as_json.stdout)["problems"]
    assert len(problems) == 1 and problems[0].startswith("llama.cpp crashed (SIGSEGV)")
    assert "scripts/setup.sh local" in problems[0] and "\n" not in problems[0]


def test_the_smoke_script_exits_non_zero_on_a_crash(tmp_path: Path) -> None:
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")
    env_path = str(crashing_llama_cpp(tmp_path))
    done = subprocess.run(
        [sys.executable, "-m", "graphmind.llm.smoke", str(gguf)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"},
        timeout=120,
        check=False,
    )
    assert done.returncode == 1 and "crashed (SIGSEGV)" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_truncated_model_file_is_reported_not_suffered(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    gguf = tmp_path / "truncated.gguf"
    gguf.write_bytes(b"GGUF" + bytes(range(256)) * 4)
    problem = check_local_model(gguf, timeout=120)
    assert problem is not None and "truncated.gguf" in problem and "\n" not in problem
