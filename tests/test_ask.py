"""The evidence loop with a scripted LLM on a two-hop fixture corpus."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from buildkit import HASH_SPEC, build, scripted_llm
from conftest import StoreFactory
from graphmind.ask.loop import ABSTAIN_ANSWER, AskLoop, AskOptions
from graphmind.ask.models import Decision
from graphmind.ask.retrieve import RetrieveOptions
from graphmind.embed.hashing import HashingEmbedder
from graphmind.errors import LLMError
from graphmind.extract.heuristic import heuristic_response
from graphmind.llm.base import Message
from graphmind.memory.decisions import read_decision
from graphmind.store.base import GraphStore

DOCS = {
    "Aldo Vance": "Aldo Vance directed the movie Silent Harbor.",
    "Silent Harbor": "Silent Harbor was recorded entirely on location in Port Ellis during 1998.",
    "Mara Quill": "Mara Quill shot a movie in the city of Dunmore.",
    "Brask": "The city of Brask opened a movie theatre that was shot at by critics.",
    "Tom Reed": "Tom Reed was a city clerk in a movie by a small studio.",
}
QUESTION = "In which city was the movie by Aldo Vance shot?"
FIRST_HOP, SECOND_HOP = "Aldo Vance directed", "Silent Harbor was recorded"


def candidates_in(messages: list[Message]) -> dict[int, str]:
    """Candidate number -> passage text, as laid out in the judge/answer prompt."""
    return {
        int(n): text
        for n, text in re.findall(
            r"^\[(\d+)\] \([^)]*\) (.*)$", messages[1]["content"], re.MULTILINE
        )
    }


def judge(messages: list[Message]) -> str:
    found = candidates_in(messages)
    relevant = "Aldo Vance" in messages[1]["content"].split("\n", 1)[0]  # the question line
    first = [n for n, t in found.items() if FIRST_HOP in t and relevant]
    second = [n for n, t in found.items() if SECOND_HOP in t and relevant]
    verdicts = [
        {
            "ref": n,
            "verdict": "used" if n in first + second else "rejected",
            "reason": "names the director's movie"
            if n in first
            else "says where it was recorded"
            if n in second
            else "another movie",
            "confidence_delta": 0.4 if n in first + second else -0.1,
        }
        for n in found
    ]
    if first and second:
        return json.dumps(
            {
                "verdicts": verdicts,
                "draft_answer": "Port Ellis",
                "sufficiency": "EXACT",
                "confidence": 0.9,
                "missing": "",
                "cue": "Silent Harbor was recorded in Port Ellis.",
            }
        )
    if first:
        return json.dumps(
            {
                "verdicts": verdicts,
                "draft_answer": "",
                "sufficiency": "PARTIAL",
                "confidence": 0.3,
                "missing": "Where was Silent Harbor recorded?",
                "coverage": [{"entity": "Aldo Vance", "covered": True}],
                "probes": ["Silent Harbor recorded location"],
                "cue": "Aldo Vance's movie is Silent Harbor.",
            }
        )
    return json.dumps(
        {
            "verdicts": verdicts,
            "sufficiency": "NONE",
            "confidence": 0.0,
            "missing": "Nothing about the question.",
            "probes": [],
        }
    )


def answer(messages: list[Message]) -> str:
    found = candidates_in(messages)
    cites = [n for n, t in found.items() if FIRST_HOP in t or SECOND_HOP in t]
    return json.dumps({"answer": "Port Ellis", "citations": cites, "abstain": not cites})


def responder(messages: list[Message]) -> str:
    system = messages[0]["content"]
    if system.startswith("You judge evidence"):
        return judge(messages)
    if system.startswith("You answer a question"):
        return answer(messages)
    return heuristic_response(messages)  # the evolving sub-graph's extraction


@pytest.fixture
def corpus_store(open_store: StoreFactory, tmp_path: Path) -> GraphStore:
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps([{"title": t, "text": x} for t, x in DOCS.items()]))
    store = open_store()
    build(store, [corpus], None, extract="none")
    return store


def loop(store: GraphStore, tmp_path: Path, responder_=responder, **options: object) -> AskLoop:
    llm = scripted_llm(tmp_path / "ask-cache.sqlite", responder_)
    opts = AskOptions(k=3, retrieve=RetrieveOptions(per_list=3), **options)  # type: ignore[arg-type]
    return AskLoop(store, HashingEmbedder(HASH_SPEC), llm, opts)


def chunk_of(store: GraphStore, title: str) -> str:
    return store.run_text(
        "MATCH (c:Chunk)-[:PART_OF]->(d:Document {title: $t}) RETURN c.id AS id", {"t": title}
    ).records()[0]["id"]


def test_two_hop_question_needs_a_second_round(corpus_store: GraphStore, tmp_path: Path) -> None:
    decision = loop(corpus_store, tmp_path).ask(QUESTION)
    first, second = decision.rounds[0], decision.rounds[1]
    assert len(decision.rounds) == 2
    assert first.judgement.sufficiency == "PARTIAL" and first.judgement.missing
    assert chunk_of(corpus_store, "Silent Harbor") not in {c.id for c in first.candidates}
    assert second.queries == [QUESTION, "Silent Harbor recorded location"]
    assert chunk_of(corpus_store, "Silent Harbor") in {c.id for c in second.candidates}
    assert second.judgement.sufficiency == "EXACT"
    assert decision.answer == "Port Ellis" and not decision.abstained
    assert {c.chunk_id for c in decision.citations} == {
        chunk_of(corpus_store, "Aldo Vance"),
        chunk_of(corpus_store, "Silent Harbor"),
    }
    assert {c.title for c in decision.citations} == {"Aldo Vance", "Silent Harbor"}
    assert decision.cues[0] == "Aldo Vance's movie is Silent Harbor."
    assert first.extracted > 0  # the used chunk had no triplets: extracted at question time
    assert first.tokens > 0 and second.tokens > 0
    assert sum(r.tokens for r in decision.rounds) == decision.tokens
    assert (
        corpus_store.run_text(
            "MATCH (t:Triplet)-[:MENTIONED_IN]->(:Chunk)-[:PART_OF]->"
            "(:Document {title: 'Aldo Vance'}) RETURN count(t) AS n"
        ).records()[0]["n"]
        > 0
    )


def test_an_inference_from_one_passage_keeps_looking(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    """An overconfident judge (INFERRABLE 0.85, nothing missing) with one used passage:
    an inference needs two, so the loop goes on to the second hop."""

    def overconfident(messages: list[Message]) -> str:
        out = json.loads(responder(messages))
        if out.get("sufficiency") == "PARTIAL":
            out.update(sufficiency="INFERRABLE", confidence=0.85, missing="", coverage=[])
        return json.dumps(out)

    decision = loop(corpus_store, tmp_path, overconfident).ask(QUESTION)
    assert [r.judgement.sufficiency for r in decision.rounds] == ["INFERRABLE", "EXACT"]
    assert decision.answer == "Port Ellis"


def test_a_named_gap_keeps_looking(corpus_store: GraphStore, tmp_path: Path) -> None:
    """EXACT with a confident draft, but the judge says what is still missing: go on."""

    def contradictory(messages: list[Message]) -> str:
        out = json.loads(responder(messages))
        out.update(sufficiency="EXACT", confidence=0.9, missing="the filming location")
        return json.dumps(out)

    decision = loop(corpus_store, tmp_path, contradictory, max_rounds=2).ask(QUESTION)
    assert len(decision.rounds) == 2


def test_the_decision_is_in_the_graph(corpus_store: GraphStore, tmp_path: Path) -> None:
    decision = loop(corpus_store, tmp_path).ask(QUESTION)
    judged = {r.candidates[v.ref - 1].id for r in decision.rounds for v in r.judgement.verdicts}
    assert sum(len(r.judgement.verdicts) for r in decision.rounds) > len(judged)  # re-judged
    edges = corpus_store.run_text(
        "MATCH (:Decision {id: $id})-[e:EVALUATED]->(c:Chunk) RETURN c.id AS id",
        {"id": decision.id},
    ).records()
    assert sorted(e["id"] for e in edges) == sorted(judged)  # one edge per evidence item
    trace = read_decision(corpus_store, decision.id)
    assert trace is not None and trace.answer == "Port Ellis" and len(trace.steps) == 2
    assert trace.steps[0].missing == "Where was Silent Harbor recorded?"
    verdicts = {c.title: c.verdict for c in trace.steps[1].candidates}
    assert verdicts["Aldo Vance"] == "used" and verdicts["Silent Harbor"] == "used"


def test_absent_answer_abstains(corpus_store: GraphStore, tmp_path: Path) -> None:
    decision = loop(corpus_store, tmp_path).ask("Who founded the Zorblax Institute?")
    assert decision.abstained and decision.answer == ABSTAIN_ANSWER
    assert decision.sufficiency == "NONE" and decision.citations == []
    assert len(decision.rounds) == 3  # it kept looking before giving up
    assert corpus_store.counts()["Decision"] == 1


def test_llm_failure_in_round_two_writes_nothing(corpus_store: GraphStore, tmp_path: Path) -> None:
    calls = {"judge": 0}

    def failing(messages: list[Message]) -> str:
        if messages[0]["content"].startswith("You judge evidence"):
            calls["judge"] += 1
            if calls["judge"] > 1:
                raise LLMError("the endpoint went away")
        return responder(messages)

    before = (corpus_store.counts(), corpus_store.relationship_count())
    with pytest.raises(LLMError):
        loop(corpus_store, tmp_path, failing, evolve_graph=False).ask(QUESTION)
    assert (corpus_store.counts(), corpus_store.relationship_count()) == before


def test_naive_mode_is_recorded_too(corpus_store: GraphStore, tmp_path: Path) -> None:
    decision = loop(corpus_store, tmp_path, mode="naive").ask(QUESTION)
    assert decision.mode == "naive" and len(decision.rounds) == 1
    assert corpus_store.counts()["Decision"] == 1


Cli = Callable[..., "subprocess.CompletedProcess[str]"]


def asked_on_disk(tmp_path: Path, store_env: dict[str, str]) -> tuple[Decision, Cli]:
    """The fixture corpus built into the backend's store (a FalkorDB Lite file, or the Neo4j
    under test when ``store_env`` names it) with one question asked, and a function running
    ``graphmind ARGS…`` against that store."""
    from conftest import open_falkordb, open_neo4j

    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps([{"title": t, "text": x} for t, x in DOCS.items()]))
    store = open_neo4j() if store_env else open_falkordb(tmp_path / "graph.db")
    try:
        build(store, [corpus], None, extract="none")
        decision = loop(store, tmp_path).ask(QUESTION)
    finally:
        store.close()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GRAPHMIND_")},
        "GRAPHMIND_STORE": f"falkordb-lite://{tmp_path / 'graph.db'}",
        **store_env,
        "GRAPHMIND_EMBEDDER": "hash:384",
        "COLUMNS": "250",
    }
    exe = str(Path(sys.executable).parent / "graphmind")

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([exe, *args], capture_output=True, text=True, env=env, timeout=120)

    return decision, cli


def test_graphmind_trace_prints_a_past_decision(tmp_path: Path, store_env: dict[str, str]) -> None:
    decision, cli = asked_on_disk(tmp_path, store_env)
    shown = cli("trace", decision.id)
    assert shown.returncode == 0, shown.stderr
    for text in (
        QUESTION,
        "Port Ellis",
        "PARTIAL",
        "EXACT",
        "Where was Silent Harbor recorded?",
        "names the director's movie",
        "another movie",
    ):
        assert text in shown.stdout, text
    as_json = cli("trace", decision.id, "--json")
    assert json.loads(as_json.stdout)["answer"] == "Port Ellis"
    missing = cli("trace", "nope")
    assert missing.returncode == 2 and "no decision 'nope'" in missing.stderr
