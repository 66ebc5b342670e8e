"""The command line as a user runs it: a fresh directory, the real console script."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path

import pytest

from graphmind.extract.fast import DEFAULT_MODEL
from helpers.cli import graphmind


def test_version(tmp_path: Path) -> None:
    result = graphmind(tmp_path, "--version")
    assert result.returncode == 0 and "graphmind, version" in result.stdout


def test_doctor_creates_the_store_and_reports_the_same_schema_twice(
    tmp_path: Path, backend: str, store_env: dict[str, str]
) -> None:
    first = graphmind(tmp_path, "doctor", "--json", env=store_env)
    assert first.returncode == 0, first.stderr
    if backend == "falkordb":  # the default store: a file in the working directory
        assert (tmp_path / ".graphmind" / "graph.db").exists()
    second = graphmind(tmp_path, "doctor", "--json", env=store_env)
    assert second.returncode == 0, second.stderr
    a, b = json.loads(first.stdout), json.loads(second.stdout)
    assert a["ok"] and b["ok"] and a["problems"] == []
    assert a["store"]["indexes"] == b["store"]["indexes"]
    assert a["store"]["meta"] == b["store"]["meta"]
    assert a["store"]["meta"]["embedder"] == "onnx:all-MiniLM-L6-v2"
    assert a["store"]["counts"]["GraphMindMeta"] == 1
    human = graphmind(tmp_path, "doctor", env=store_env)
    assert human.returncode == 0
    online = "OPERATIONAL" if backend == "falkordb" else "ONLINE"
    for words in (f"{backend} at", "GDS", "no", online, "Chunk", "embedder", "LLM"):
        assert words in human.stdout
    assert not [line for line in human.stdout.splitlines() if line.endswith(" ")]  # piped


def test_doctor_reports_an_embedder_mismatch(tmp_path: Path, store_env: dict[str, str]) -> None:
    assert graphmind(tmp_path, "doctor", env=store_env).returncode == 0
    result = graphmind(
        tmp_path, "doctor", env={**store_env, "GRAPHMIND_EMBEDDER": "all-mpnet-base-v2"}
    )
    assert result.returncode == 1
    assert "all-MiniLM-L6-v2" in result.stdout and "all-mpnet-base-v2" in result.stdout
    assert "Traceback" not in result.stderr


def test_cypher_reads_with_parameters_and_refuses_writes(
    tmp_path: Path, store_env: dict[str, str]
) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return graphmind(tmp_path, "cypher", *args, env=store_env)

    query = "MATCH (m:GraphMindMeta {id: $id}) RETURN m.dimension AS dim, m.embedder AS embedder"
    result = run(query, "-p", "id=graphmind", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [{"dim": 384, "embedder": "onnx:all-MiniLM-L6-v2"}]
    (tmp_path / "audit.cypher").write_text("MATCH (n) RETURN count(n) AS nodes")
    table = run("audit.cypher")
    assert table.returncode == 0 and "nodes" in table.stdout and "1 row(s)" in table.stdout
    capped = run("UNWIND range(1, 5) AS i RETURN i", "--limit", "2", "--json")
    assert capped.returncode == 0 and json.loads(capped.stdout) == [{"i": 1}, {"i": 2}]
    assert "more than 2 rows" in capped.stderr and "--limit N for more" in capped.stderr
    everything = run("UNWIND range(1, 5) AS i RETURN i", "--limit", "5", "--json")
    assert len(json.loads(everything.stdout)) == 5 and "more than" not in everything.stderr
    unbounded = run("UNWIND range(1, 5) AS i RETURN i", "--limit", "0")
    assert unbounded.returncode == 2 and "--limit" in unbounded.stderr
    write = run("CREATE (:Chunk {id: 'x'})")
    assert write.returncode != 0 and "read-only" in write.stderr
    assert "Traceback" not in write.stderr
    missing = run("MATCH (n {id: $id}) RETURN n")
    assert missing.returncode != 0 and "$id" in missing.stderr
    broken = run("MATCH (n RETURN n")
    assert broken.returncode != 0 and "rejected the query" in broken.stderr
    assert "Traceback" not in broken.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--store", "mysql://x", "doctor"), "unsupported store URI"),
        (("cypher", "missing.cypher"), "no such file"),
    ],
)
def test_user_errors_are_one_line_not_a_traceback(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    result = graphmind(tmp_path, *args)
    assert result.returncode != 0
    assert message in result.stderr + result.stdout
    assert "Traceback" not in result.stderr


def test_build_command_chunk_only_then_rebuild(tmp_path: Path, store_env: dict[str, str]) -> None:
    corpus = Path(__file__).parent / "fixtures" / "corpus"
    env = {**store_env, "GRAPHMIND_EMBEDDER": "hash:384"}
    first = graphmind(tmp_path, "build", str(corpus), "--extract", "none", "--json", env=env)
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert report["documents_new"] == 5 and report["counts"]["Chunk"] == 5
    second = graphmind(tmp_path, "build", str(corpus), "--extract", "none", env=env)
    assert second.returncode == 0, second.stderr
    assert "documents skipped (unchanged)" in second.stdout and "build summary" in second.stdout
    missing = graphmind(tmp_path, "build", str(tmp_path / "nope"), env=env)
    assert missing.returncode == 3 and "no such file or directory" in missing.stderr
    assert "Traceback" not in missing.stderr
    other = graphmind(tmp_path, "build", str(corpus), "--extract", "none", env=store_env)
    assert other.returncode == 1 and "hash:hash-384" in other.stderr  # embedder mismatch


def test_build_without_an_llm_says_what_to_do(tmp_path: Path) -> None:
    corpus = Path(__file__).parent / "fixtures" / "corpus"
    env = {"GRAPHMIND_EMBEDDER": "hash:384", "GRAPHMIND_MODEL_DIR": str(tmp_path / "models")}
    result = graphmind(tmp_path, "build", str(corpus), "--extract", "llm", env=env)
    assert result.returncode == 2
    assert "fetch_model.py" in result.stderr and "--extract none" in result.stderr
    assert "Traceback" not in result.stderr
    if importlib.util.find_spec(DEFAULT_MODEL) is None:
        return  # the default (auto) then needs the spaCy pipeline: test_extract_fast
    default = graphmind(tmp_path, "build", str(corpus), "--json", env=env)
    assert default.returncode == 0, default.stderr  # with no LLM, auto is spaCy's graph
    report = json.loads(default.stdout)
    assert report["extraction"].startswith("fast:") and report["counts"]["Triplet"] > 0


def test_build_with_the_episodic_layer_and_communities_command(
    tmp_path: Path, store_env: dict[str, str]
) -> None:
    corpus = tmp_path / "story.txt"
    corpus.write_text(" ".join(f"Scene {i}: Mira walks to the harbour at dawn." for i in range(60)))
    env = {**store_env, "GRAPHMIND_EMBEDDER": "hash:384"}
    result = graphmind(
        tmp_path,
        "build",
        str(corpus),
        "--extract",
        "none",
        "--chunk-size",
        "40",
        "--chunk-overlap",
        "0",
        "--layers",
        "episodic",
        "--json",
        env=env,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    chunks = report["counts"]["Chunk"]
    assert chunks > 3 and report["episodes"]["episodes"] == -(-chunks // 3)
    assert report["episodes"]["fallbacks"] == report["episodes"]["new"]
    communities = graphmind(tmp_path, "communities", "--no-summaries", "--json", env=env)
    assert communities.returncode == 0, communities.stderr
    assert json.loads(communities.stdout)["levels"] == {}  # no entities without extraction
