"""The full answer beside the short one: a next turn of the answer call's conversation,
its sentences tied to the passages they cite, written to the graph and read back."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from graphmind.core.decision import full_answer, numbered_sources, numbered_statements
from graphmind.llm.base import Message
from graphmind.memory.decisions import read_decision
from graphmind.store.base import GraphStore
from helpers.ask import DOCS, QUESTION, chunk_of, is_explain, loop, responder


def recorder() -> tuple[list[list[Message]], Callable[[list[Message]], str]]:
    """The fixture responder, keeping every conversation it was sent."""
    calls: list[list[Message]] = []

    def recording(messages: list[Message]) -> str:
        calls.append(messages)
        return responder(messages)

    return calls, recording


def test_the_full_answer_goes_on_from_the_answer_call_and_cites_its_passages(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    calls, recording = recorder()

    ask = loop(corpus_store, tmp_path, recording, explain=True, k=5)
    decision = ask.ask(QUESTION)
    assert decision.answer == "Port Ellis"
    explained = [m for m in calls if is_explain(m)]
    assert len(explained) == 1 and calls[-1] is explained[0]  # one call, after the rounds
    # the same first turns as the answer call it goes on from, then its answer
    answer_calls = [m for m in calls if len(m) == 2 and m[0]["content"].startswith("You answer")]
    sent = explained[0]
    assert sent[1]["content"].startswith(answer_calls[-1][1]["content"])
    assert '"answer":"Port Ellis"' in sent[2]["content"]
    texts = [s.text for s in decision.explanation]
    # the passage-less and the question-only sentences are left out
    assert "Nothing here is cited." not in texts
    assert "Where was the Aldo Vance movie shot?" not in texts
    assert "It was shot in Port Ellis." in texts
    harbor, brask = chunk_of(corpus_store, "Silent Harbor"), chunk_of(corpus_store, "Brask")
    cited = {c.chunk_id for c in decision.citations}
    assert harbor in cited and brask not in cited  # the short answer's citations as before
    assert [c.chunk_id for c in decision.sources] == [brask]  # cited by the full answer only
    assert DOCS["Brask"] in decision.sources[0].text
    statements = numbered_statements(decision)
    brask_ref = [c.chunk_id for c in numbered_sources(decision)].index(brask) + 1
    assert {"text": "Brask has a movie theatre.", "refs": [brask_ref]} in statements
    assert f"Brask has a movie theatre. [{brask_ref}]" in full_answer(decision)
    # written with the decision and read back as it was
    back = read_decision(corpus_store, decision.id)
    assert back is not None
    assert back.explanation == decision.explanation and back.sources == decision.sources
    stored = corpus_store.run_text(
        "MATCH (d:Decision {id: $id})-[c:CITED]->(x:Chunk) WHERE c.full = true "
        "RETURN d.full_answer AS text, collect(x.id) AS ids",
        {"id": decision.id},
    ).records()
    assert stored[0]["ids"] == [brask] and stored[0]["text"] == full_answer(decision)


def test_short_asks_no_full_answer_and_an_abstention_gets_none(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    calls, recording = recorder()

    short = loop(corpus_store, tmp_path, recording, explain=False).ask(QUESTION)
    assert short.answer == "Port Ellis" and not short.explanation
    assert not any(is_explain(m) for m in calls)
    assert full_answer(short) == "Port Ellis"
    unknown = loop(corpus_store, tmp_path, recording, explain=True).ask("Who founded Zorblax?")
    assert unknown.abstained and not unknown.explanation
    assert not any(is_explain(m) for m in calls)


def test_the_naive_baseline_explains_from_its_own_call(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    calls, recording = recorder()

    naive = loop(corpus_store, tmp_path, recording, mode="naive", explain=True, k=5)
    decision = naive.ask(QUESTION)
    assert len(calls) == 2 and is_explain(calls[1])
    assert calls[1][:2][1]["content"].startswith(calls[0][1]["content"])
    assert decision.explanation
