"""The full answer beside the short one: a next turn of the answer call's conversation,
its sentences tied to the passages they cite, written to the graph and read back."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from graphmind.ask.models import MAX_STATEMENTS
from graphmind.core.decision import full_answer, numbered_sources, numbered_statements
from graphmind.llm.base import Message
from graphmind.memory.decisions import read_decision
from graphmind.store.base import GraphStore
from helpers.ask import (
    DOCS,
    FIRST_HOP,
    QUESTION,
    candidates_in,
    chunk_of,
    is_check,
    is_explain,
    loop,
    responder,
)


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


def test_the_full_answer_also_reads_what_the_other_rounds_used(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    numbered = re.compile(r"^\[(\d+)\] \(([^)]*)\)", re.MULTILINE)

    def rounds(second: str) -> tuple[list[list[Message]], Callable[[list[Message]], str]]:
        """Round 1 answers the first hop and asks for more; round 2 answers ``second``
        from Mara Quill's passage (which states "Dunmore", not "Port Ellis"): another
        answer, so round 1's is kept."""
        calls: list[list[Message]] = []

        def respond(messages: list[Message]) -> str:
            calls.append(messages)
            if is_explain(messages):
                later = {t: int(n) for n, t in numbered.findall(messages[-1]["content"])}
                sentences = [
                    {"text": "Aldo Vance directed the movie Silent Harbor.", "citations": [1]},
                    {
                        "text": "Mara Quill shot a movie in Dunmore.",
                        "citations": [later.get("Mara Quill", 1)],
                    },
                ]
                return json.dumps({"sentences": sentences})
            if is_check(messages):
                return json.dumps({"complete": False, "missing": "more", "query": "Mara Quill"})
            shown = candidates_in(messages)
            if len(calls) == 1:
                cite = [n for n, t in shown.items() if FIRST_HOP in t]
                return json.dumps({"answer": "Silent Harbor", "citations": cite})
            cite = [n for n, t in shown.items() if "Dunmore" in t]
            return json.dumps({"answer": second, "citations": cite})

        return calls, respond

    calls, respond = rounds("Dunmore")
    decision = loop(corpus_store, tmp_path, respond, explain=True, k=1).ask(QUESTION)
    assert decision.answer == "Silent Harbor" and len(decision.rounds) == 2
    [sent] = [m for m in calls if is_explain(m)]
    # round 1's conversation goes on, and round 2's passage follows, numbered after it
    assert sent[1]["content"].startswith(calls[0][1]["content"])
    assert sent[-1]["content"].startswith("More passages the search found:\n[2] (Mara Quill)")
    quill = chunk_of(corpus_store, "Mara Quill")
    assert [s.chunks for s in decision.explanation] == [
        [chunk_of(corpus_store, "Aldo Vance")],
        [quill],
    ]
    assert [c.chunk_id for c in decision.sources] == [quill]
    # a round whose answer its passage does not state adds nothing
    (tmp_path / "ungrounded").mkdir()
    calls, respond = rounds("Port Ellis")
    decision = loop(corpus_store, tmp_path / "ungrounded", respond, explain=True, k=1).ask(QUESTION)
    assert decision.answer == "Silent Harbor" and len(decision.rounds) >= 2
    [sent] = [m for m in calls if is_explain(m)]
    assert "More passages" not in sent[-1]["content"] and "Mara Quill" not in sent[-1]["content"]
    assert [s.chunks for s in decision.explanation] == [[chunk_of(corpus_store, "Aldo Vance")]]


def test_a_full_answer_that_copies_row_by_row_keeps_a_few_sentences(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    # a small model copying a table packs a dozen real sentences into its four
    copied = [
        "Silent Harbor was recorded in Port Ellis. Silent Harbor was recorded in 1998.",
        "Aldo Vance directed Silent Harbor. Aldo Vance directed a movie. Port Ellis was a "
        "location in 1998.",
        "Mara Quill shot a movie. Mara Quill was in Dunmore. Dunmore is a city.",
        "Brask opened a movie theatre. Critics shot at the Brask theatre. Tom Reed was a "
        "city clerk.",
    ]

    def respond(messages: list[Message]) -> str:
        if is_explain(messages):
            every = list(candidates_in(messages))
            return json.dumps({"sentences": [{"text": t, "citations": every} for t in copied]})
        return responder(messages)

    decision = loop(corpus_store, tmp_path, respond, explain=True, k=5).ask(QUESTION)
    assert decision.answer == "Port Ellis"
    texts = [s.text for s in decision.explanation]
    assert len(texts) == MAX_STATEMENTS < 11  # every one of the 11 is stated by a passage
    assert texts[:3] == [
        "Silent Harbor was recorded in Port Ellis.",
        "Silent Harbor was recorded in 1998.",
        "Aldo Vance directed Silent Harbor.",
    ]
    assert "Tom Reed was a city clerk." not in texts
