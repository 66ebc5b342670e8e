"""The ask loop's fixture corpus (a two-hop question), its scripted model and loop."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from buildkit import HASH_SPEC, build, scripted_llm
from conftest import asked_question
from graphmind.ask.loop import AskLoop
from graphmind.ask.options import AskOptions
from graphmind.ask.retrieve import RetrieveOptions
from graphmind.core.decision import Candidate, Decision
from graphmind.embed.hashing import HashingEmbedder
from graphmind.extract.heuristic import heuristic_response
from graphmind.llm.base import Message
from graphmind.store.base import GraphStore

DOCS = {
    "Aldo Vance": "Aldo Vance directed the movie Silent Harbor.",
    "Silent Harbor": "Silent Harbor was recorded entirely on location in Port Ellis during 1998.",
    "Mara Quill": "Mara Quill shot a movie in the city of Dunmore.",
    "Brask": "The city of Brask opened a movie theatre that was shot at by critics.",
    "Tom Reed": "Tom Reed was a city clerk in a movie by a small studio.",
}
QUESTION = "Where was the Aldo Vance movie shot?"
BRIDGED = "In which city was the movie by Aldo Vance shot?"  # "the movie by Aldo Vance": a bridge
FIRST_HOP, SECOND_HOP = "Aldo Vance directed", "Silent Harbor was recorded"


# a passage as laid out in the judge/answer prompt: "[number] (title) text"
_PASSAGE = re.compile(r"^\[(\d+)\] \(([^)]*)\) (.*)$", re.MULTILINE)


def candidates_in(messages: list[Message]) -> dict[int, str]:
    """Candidate number -> passage text, as laid out in the judge/answer prompt."""
    return {int(n): text for n, _, text in _PASSAGE.findall(messages[1]["content"])}


def titles_in(messages: list[Message]) -> list[str]:
    """The titles of the passages an answer call shows, in order."""
    return [title for _, title, _ in _PASSAGE.findall(messages[1]["content"])]


def is_check(messages: list[Message]) -> bool:
    """The check turn: the answer call's conversation, the answer, then the check."""
    return len(messages) > 2 and messages[-1]["content"].startswith("Check your answer")


def is_explain(messages: list[Message]) -> bool:
    """The full answer's turn: the answer call's conversation, the answer, then the ask
    for a few sentences (after the passages other rounds used, when there are any)."""
    return len(messages) > 2 and "Now write the full answer" in messages[-1]["content"]


def explain(messages: list[Message]) -> str:
    """A full answer like a small model's: the answer in a sentence on the passage the
    short answer cites last, one on a passage only it cites, one citing no shown passage
    and one that only restates the question (the last two are left out)."""
    said = json.loads(messages[-2]["content"])
    found = candidates_in(messages)
    extra = [n for n, t in found.items() if n not in said["citations"] and "Brask" in t]
    sentences = [
        {"text": f"It was shot in {said['answer']}.", "citations": said["citations"][-1:]},
        {"text": "Brask has a movie theatre.", "citations": extra[:1]},
        {"text": "Nothing here is cited.", "citations": [99]},
        {"text": "Where was the Aldo Vance movie shot?", "citations": [1]},
    ]
    return json.dumps({"sentences": sentences})


def answer(messages: list[Message]) -> str:
    """Answers the second hop when both passages are there, else (like a small model)
    the first hop's movie; abstains without either."""
    found = candidates_in(messages)
    asked = asked_question(messages)
    relevant = "Aldo Vance" in asked
    first = [n for n, t in found.items() if FIRST_HOP in t and relevant]
    second = [n for n, t in found.items() if SECOND_HOP in t and relevant]
    if "Silent Harbor" in asked:  # the second hop's own question
        second = [n for n, t in found.items() if SECOND_HOP in t]
        if second:
            return json.dumps({"answer": "Port Ellis", "citations": second})
    if first and second:
        return json.dumps({"answer": "Port Ellis", "citations": first + second})
    if first:
        return json.dumps({"answer": "Silent Harbor", "citations": first})
    return json.dumps({"answer": "", "citations": [], "abstain": True})


def check(messages: list[Message]) -> str:
    said = json.loads(messages[-2]["content"])["answer"]
    if said == "Port Ellis":
        return json.dumps({"complete": True, "missing": "", "query": ""})
    if said == "Silent Harbor":
        return json.dumps(
            {
                "complete": False,
                "missing": "Where was Silent Harbor recorded?",
                "query": "Silent Harbor recorded location",
            }
        )
    return json.dumps({"complete": False, "missing": "who founded it", "query": "Zorblax founder"})


def responder(messages: list[Message]) -> str:
    system = messages[0]["content"]
    if system.startswith("You answer a question"):
        if is_explain(messages):
            return explain(messages)
        return check(messages) if is_check(messages) else answer(messages)
    return heuristic_response(messages)  # the evolving sub-graph's extraction


def built(store: GraphStore, tmp_path: Path, docs: dict[str, str] = DOCS) -> GraphStore:
    """``store`` with ``docs`` (title -> text) built into it, chunk-only."""
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps([{"title": t, "text": x} for t, x in docs.items()]))
    build(store, [corpus], None, extract="none")
    return store


def loop(store: GraphStore, tmp_path: Path, responder_=responder, **options: object) -> AskLoop:
    llm = scripted_llm(tmp_path / "ask-cache.sqlite", responder_)
    knobs: dict[str, object] = {
        "k": 3,
        "extra": 0,
        "follow_up": 3,
        "retrieve": RetrieveOptions(per_list=3),
        "explain": False,  # the rounds' calls alone; test_ask_explain covers the full answer
        **options,
    }
    opts = AskOptions(**knobs)  # type: ignore[arg-type]
    return AskLoop(store, HashingEmbedder(HASH_SPEC), llm, opts)


def chunk_of(store: GraphStore, title: str) -> str:
    return store.run_text(
        "MATCH (c:Chunk)-[:PART_OF]->(d:Document {title: $t}) RETURN c.id AS id", {"t": title}
    ).records()[0]["id"]


Cli = Callable[..., "subprocess.CompletedProcess[str]"]


def asked_on_disk(tmp_path: Path, store_env: dict[str, str]) -> tuple[Decision, Cli]:
    """The fixture corpus built into the backend's store (a FalkorDB Lite file, or the Neo4j
    under test when ``store_env`` names it) with one question asked, and a function running
    ``graphmind ARGS…`` against that store."""
    from conftest import open_falkordb, open_neo4j

    store = open_neo4j() if store_env else open_falkordb(tmp_path / "graph.db")
    try:
        built(store, tmp_path)
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


def passage(title: str, text: str) -> Candidate:
    """A candidate passage named by its title, for the rules and the grading."""
    return Candidate(id=title, text=text, title=title, score=1.0, sources=[])


BETTANY = passage("Paul Bettany", "Paul Bettany, who plays Vision, married Jennifer Connelly.")
