"""Broad questions from the community layer: routing, map and reduce, lazy summaries, and
the decision with its community verdicts written to and read back from both stores."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rich.console import Console
from test_communities import extraction, write_clusters

from buildkit import HASH_SPEC, build, provider_of, scripted_llm
from conftest import StoreFactory
from graphmind.ask.loop import AskLoop
from graphmind.ask.options import AskOptions
from graphmind.ask.rules.question import broad_question, whole_collection
from graphmind.communities.pipeline import build_communities
from graphmind.core.decision import Decision, both_answers, full_answer
from graphmind.core.errors import BadInputError
from graphmind.embed.hashing import HashingEmbedder
from graphmind.llm.base import Message
from graphmind.llm.client import LLM
from graphmind.llm.scripted import Responder
from graphmind.memory.decisions import read_decision
from graphmind.memory.render import print_trace
from graphmind.memory.session import MemoryOptions
from graphmind.show import decision_view
from graphmind.store.base import GraphStore
from helpers.ask import candidates_in

BROAD = "What are the main themes across these documents?"
ABSTAIN = json.dumps({"answer": "", "citations": [], "abstain": True})
_POINT = re.compile(r"^\[(\d+)\] \(([^)]*)\) (.*)$", re.MULTILINE)


def is_map(messages: list[Message]) -> bool:
    return messages[0]["content"].startswith("You read one part of a document collection")


def is_reduce(messages: list[Message]) -> bool:
    return messages[0]["content"].startswith("You answer a broad question")


def broad_model(messages: list[Message]) -> str:
    """Map: a title and summary from the first person named, a point on each passage (the
    bridge's scored low) and one citing no shown passage. Reduce: a sentence per point, one
    citing no point and one restating the question. Anything else: an abstention."""
    if is_map(messages):
        found = candidates_in(messages)
        first = re.match(r"[A-Z]\w+ [A-Z]\w+", found[1])
        points = [
            {"text": f"{t.split('.')[0]}.", "passages": [n], "score": 30 if "met" in t else 80}
            for n, t in found.items()
        ]
        points.append({"text": "Something no passage says.", "passages": [9], "score": 99})
        return json.dumps(
            {
                "title": f"Circle of {first.group(0) if first else 'nobody'}",
                "summary": "People who worked together.",
                "points": points,
            }
        )
    if is_reduce(messages):
        points = _POINT.findall(messages[1]["content"])
        sentences = [
            {"text": f"One theme: {text}", "citations": [int(n)]} for n, _, text in points[:3]
        ]
        sentences += [
            {"text": "Nothing cited here.", "citations": [42]},
            {"text": BROAD, "citations": [1]},
        ]
        return json.dumps({"sentences": sentences})
    if messages[-1]["content"].startswith("Check your answer"):
        return json.dumps({"complete": True})
    return ABSTAIN


@pytest.fixture
def communities(open_store: StoreFactory, tmp_path: Path) -> GraphStore:
    """Two circles of colleagues and the meeting that links them, with communities titled
    by their members' names only (no LLM summarised them)."""
    corpus = write_clusters(tmp_path / "corpus")
    store = open_store()
    build(store, [corpus], scripted_llm(tmp_path / "extract.sqlite", extraction), resolve="off")
    build_communities(store, HashingEmbedder(HASH_SPEC), None)
    return store


def asker(
    store: GraphStore, tmp_path: Path, responder: Responder = broad_model, **options: object
) -> tuple[AskLoop, LLM]:
    llm = scripted_llm(tmp_path / "ask.sqlite", responder)
    opts = AskOptions(memory=MemoryOptions(mode="off"), **options)  # type: ignore[arg-type]
    return AskLoop(store, HashingEmbedder(HASH_SPEC), llm, opts), llm


def requests(llm: LLM) -> list[list[Message]]:
    return provider_of(llm).requests


def test_a_broad_question_is_answered_from_the_communities(
    communities: GraphStore, tmp_path: Path
) -> None:
    loop, llm = asker(communities, tmp_path)
    d = loop.ask(BROAD)
    assert d.mode == "broad" and not d.abstained
    sent = requests(llm)
    maps = [m for m in sent if is_map(m)]
    assert len(maps) == 2 and sum(map(is_reduce, sent)) == 1 and len(sent) == 3
    # names-only communities are shown by their members' names
    assert all("Entities: " in m[1]["content"] for m in maps)
    # the bridge passage states both circles: read once, by the first community only
    shown = [c.id for c in d.rounds[0].candidates]
    assert len(shown) == len(set(shown)) == 3
    # the sentences citing no point or restating the question are left out
    assert [s.text.split(":")[0] for s in d.explanation] == ["One theme"] * 3
    assert all(s.chunks and set(s.chunks) <= set(shown) for s in d.explanation)
    assert [c.chunk_id for c in d.citations] == list(
        dict.fromkeys(c for s in d.explanation for c in s.chunks)
    )
    assert full_answer(d).startswith("One theme: ") and "[1]" in full_answer(d)
    given = both_answers(d)  # what MCP's ask and POST /ask return
    assert given["scope"] == "broad" and len(given["citations"]) == len(d.citations)
    assert [c["id"] for c in given["communities"]] == [c.id for c in d.communities]
    # every community read has a verdict; the point no passage supports is not kept
    assert {c.verdict for c in d.communities} == {"used"}
    assert all(c.title.startswith("Circle of ") for c in d.communities)
    assert max(c.score for c in d.communities) == 0.8
    verdicts = {v.verdict for v in d.rounds[0].judgement.verdicts}
    assert len(d.rounds[0].judgement.verdicts) == 3 and verdicts <= {"used", "rejected"}


# a passage that names nobody: in no community, and nearest the question
UNNAMED = "The main themes across these documents are work and meetings, the documents say."


@pytest.fixture
def with_unnamed(open_store: StoreFactory, tmp_path: Path) -> GraphStore:
    """The two circles, and a passage no community holds that answers in its own words."""
    corpus = write_clusters(tmp_path / "corpus")
    (corpus / "overview.txt").write_text(UNNAMED)
    store = open_store()
    build(store, [corpus], scripted_llm(tmp_path / "extract.sqlite", extraction), resolve="off")
    build_communities(store, HashingEmbedder(HASH_SPEC), None)
    return store


@pytest.mark.parametrize("nearest", [2, 0])
def test_the_nearest_passages_no_community_read_are_one_more_part(
    with_unnamed: GraphStore, tmp_path: Path, nearest: int
) -> None:
    loop, llm = asker(with_unnamed, tmp_path, broad_nearest=nearest)
    d = loop.ask(BROAD)
    maps = [m for m in requests(llm) if is_map(m)]
    local = [m for m in maps if "Group: the passages nearest the question" in m[1]["content"]]
    shown = {c.text: c for c in d.rounds[0].candidates}
    # the communities' map calls, and (unless off) one for the passage none of them holds
    assert len(maps) == 2 + bool(nearest) and len(local) == bool(nearest)
    assert (UNNAMED in shown) is bool(nearest)
    assert len(d.communities) == 2  # verdicts are for communities only
    if nearest:
        assert "Entities:" not in local[0][1]["content"]
        assert shown[UNNAMED].sources == ["vector:chunk"]
        assert any(shown[UNNAMED].id in s.chunks for s in d.explanation)


# the 1.5B's way of giving the question back: its words, with a few of its own
PADDED = "The main themes across these documents are described in detail by the documents."


def echoing_reduce(messages: list[Message], echo: str = BROAD) -> str:
    """A small model's reduce call: the question back, citing every point."""
    if is_reduce(messages):
        cited = list(range(1, len(_POINT.findall(messages[1]["content"])) + 1))
        return json.dumps({"sentences": [{"text": echo, "citations": cited}]})
    return broad_model(messages)


@pytest.mark.parametrize("echo", [BROAD, PADDED])
def test_when_the_reduce_call_only_restates_the_question_the_best_points_answer(
    communities: GraphStore, tmp_path: Path, echo: str
) -> None:
    loop, _ = asker(communities, tmp_path, responder=lambda m: echoing_reduce(m, echo))
    d = loop.ask(BROAD)
    assert d.mode == "broad" and not d.abstained
    texts = [s.text for s in d.explanation]
    # the points with a shown passage, best score first; not the one no passage states
    assert texts and "Something no passage says." not in texts and echo not in texts
    shown = {c.id for c in d.rounds[0].candidates}
    assert all(s.chunks and set(s.chunks) <= shown for s in d.explanation)
    assert {c.verdict for c in d.communities} == {"used"}


def one_sentence_reduce(messages: list[Message]) -> str:
    """A small model's reduce call: one sentence, on the first point alone."""
    if is_reduce(messages):
        (first, *_) = _POINT.findall(messages[1]["content"])
        return json.dumps({"sentences": [{"text": f"Mainly: {first[2]}", "citations": [1]}]})
    return broad_model(messages)


def ask_broad(
    store: GraphStore, tmp_path: Path, responder: Responder
) -> tuple[Decision, list[tuple[str, str, str]]]:
    """The broad question's decision, and the points its one reduce call was shown
    (number, community title, text)."""
    loop, llm = asker(store, tmp_path, responder=responder)
    d = loop.ask(BROAD)
    (reduce_call,) = [m for m in requests(llm) if is_reduce(m)]
    return d, _POINT.findall(reduce_call[1]["content"])


def test_a_one_sentence_answer_is_followed_by_the_best_point_of_each_part_it_left_out(
    communities: GraphStore, tmp_path: Path
) -> None:
    d, points = ask_broad(communities, tmp_path, one_sentence_reduce)
    groups = [group for _, group, _ in points]
    assert len(set(groups)) == 2  # the premise: points from both circles
    texts = [s.text for s in d.explanation]
    assert texts[0] == f"Mainly: {points[0][2]}"
    # the other circle's best point (the first of its group in the ranked list), once
    other = next(text for _, group, text in points if group != groups[0])
    assert texts[1:] == [other]
    assert {c.verdict for c in d.communities} == {"used"}
    assert d.rounds[0].judgement.sufficiency == "INFERRABLE"


def repeating_reduce(messages: list[Message]) -> str:
    """The 1.5B's reduce call: the first point running on into the prompt's next point
    line, then the same point again with a word changed, then the second point with its
    community's title copied before it."""
    if is_reduce(messages):
        (first, second, *_) = _POINT.findall(messages[1]["content"])
        run_on = f"One theme: {first[2]}\n[2] ({second[1]}) {second[2][:12]}"
        sentences = [
            {"text": run_on, "citations": [1]},
            {"text": f"One theme again: {first[2]}", "citations": [1]},
            {"text": f"({second[1]}) {second[2]}", "citations": [2]},
        ]
        return json.dumps({"sentences": sentences})
    return broad_model(messages)


def test_a_sentence_repeating_one_before_it_is_left_out_and_copied_point_lines_dropped(
    communities: GraphStore, tmp_path: Path
) -> None:
    d, (first, second, *_) = ask_broad(communities, tmp_path, repeating_reduce)
    texts = [s.text for s in d.explanation]
    assert texts[:2] == [f"One theme: {first[2]}", second[2]]
    assert not any(t.startswith(("One theme again", "(")) for t in texts)
    assert all(s.chunks for s in d.explanation)


def test_the_decision_and_its_communities_are_in_the_graph(
    communities: GraphStore, tmp_path: Path
) -> None:
    loop, _ = asker(communities, tmp_path)
    d = loop.ask(BROAD)
    edges = communities.run_text(
        "MATCH (:Decision {id: $id})-[v:EVALUATED]->(c:Community) "
        "RETURN c.id AS id, v.verdict AS verdict, v.reason AS reason",
        {"id": d.id},
    ).records()
    assert sorted(r["id"] for r in edges) == sorted(c.id for c in d.communities)
    back = read_decision(communities, d.id)
    assert back is not None and back.mode == "broad"
    assert back.communities == sorted(d.communities, key=lambda c: (-c.score, c.id))
    assert back.explanation == d.explanation and back.citations == d.citations
    # trace and show display them
    console = Console(record=True, width=200)
    print_trace(back, console)
    shown = console.export_text()
    assert "Communities" in shown and all(c.title in shown for c in d.communities)
    view = decision_view(communities, d.id)
    drawn = {n.id for n in view.nodes.values() if n.label == "Community"}
    assert drawn == {c.id for c in d.communities}
    assert {e.caption for e in view.edges if e.target in drawn} == {"used"}


def test_lazy_summaries_are_kept_and_read_by_the_next_broad_question(
    communities: GraphStore, tmp_path: Path
) -> None:
    loop, llm = asker(communities, tmp_path)
    loop.ask(BROAD)
    rows = communities.run_text(
        "MATCH (c:Community) RETURN c.title AS title, c.summary AS summary, "
        "c.summary_status AS status"
    ).records()
    assert {r["status"] for r in rows} == {"lazy"}
    assert all(r["title"].startswith("Circle of ") for r in rows)
    # embedded as written: the lazy summary's text finds its community
    text = f"{rows[0]['title']}\n{rows[0]['summary']}"
    hit = communities.vector_search("Community", HashingEmbedder(HASH_SPEC).embed([text])[0], 1)
    assert hit[0].properties["title"] == rows[0]["title"] and hit[0].similarity > 0.99
    loop.ask("Summarize the recurring themes throughout the collection.")
    later = [m for m in requests(llm) if is_map(m)][2:]
    assert len(later) == 2
    assert all("Summary: People who worked together." in m[1]["content"] for m in later)
    assert not any("Entities: " in m[1]["content"] for m in later)


def question_summary(messages: list[Message]) -> str:
    """A small model's map call: the question back as the group's title and summary."""
    if is_map(messages):
        out = json.loads(broad_model(messages))
        return json.dumps({**out, "title": "Main themes", "summary": BROAD})
    return broad_model(messages)


def borrowing_summary(messages: list[Message]) -> str:
    """A small model's map call: a summary from the first passage, and "one of the main
    themes", the question's words, which no passage says (less than half the summary)."""
    if is_map(messages):
        out = json.loads(broad_model(messages))
        first = candidates_in(messages)[1].split(".")[0]
        return json.dumps({**out, "summary": f"{first}: one of the main themes."})
    return broad_model(messages)


@pytest.mark.parametrize("responder", [question_summary, borrowing_summary])
def test_a_summary_of_the_question_is_not_kept_for_later_questions(
    communities: GraphStore, tmp_path: Path, responder: Responder
) -> None:
    loop, _ = asker(communities, tmp_path, responder=responder)
    d = loop.ask(BROAD)
    assert not d.abstained  # the points still answer
    rows = communities.run_text(
        "MATCH (c:Community) RETURN c.title AS title, c.summary_status AS status"
    ).records()
    assert rows and {r["status"] for r in rows} == {"names"}
    assert not any(r["title"] == "Main themes" for r in rows)


def test_deep_questions_and_stores_without_communities_go_to_the_loop(
    communities: GraphStore, tmp_path: Path
) -> None:
    loop, llm = asker(communities, tmp_path)
    assert loop.ask("Who did Alice Archer meet?").mode == "loop"
    forced, forced_llm = asker(communities, tmp_path / "forced", scope="deep")
    assert forced.ask(BROAD).mode == "loop"
    assert not any(is_map(m) for m in requests(llm) + requests(forced_llm))
    communities._execute("MATCH (c:Community) DETACH DELETE c", {}, write=True)  # as chunk-only
    assert asker(communities, tmp_path / "auto")[0].ask(BROAD).mode == "loop"
    with pytest.raises(BadInputError, match="no communities"):
        asker(communities, tmp_path / "broad", scope="broad")[0].ask(BROAD)


@pytest.mark.parametrize(
    ("question", "whole"),
    [(BROAD, True), ("What kinds of work did Bella Brook's colleagues do together?", False)],
)
def test_the_largest_communities_are_read_only_for_a_question_about_the_whole(
    communities: GraphStore,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    question: str,
    whole: bool,
) -> None:
    ran: list[str] = []
    run = communities.run

    def spy(name: str, params: object = None, **kwargs: object) -> object:
        ran.append(name)
        return run(name, params, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(communities, "run", spy)
    loop, _ = asker(communities, tmp_path, scope="broad")
    assert loop.ask(question).mode == "broad"
    assert ("ask/broad_top_communities" in ran) is whole


@pytest.mark.parametrize(
    ("question", "whole"),
    [
        (BROAD, True),
        ("Summarize these documents.", True),
        ("What topics does the manual cover?", True),
        ("What are the key risks discussed in these contracts?", False),
        ("Summarize what the documentation says about concurrency.", False),
        ("Which modules, functions and settings does the manual mark as deprecated?", False),
        ("Who directed Free Guy?", False),  # not broad at all
    ],
)
def test_a_question_about_the_whole_collection_is_told_from_one_about_a_subject(
    question: str, whole: bool
) -> None:
    assert whole_collection(question) is whole


@pytest.mark.parametrize(
    "question",
    [
        BROAD,
        "What are the key risks discussed in these contracts?",
        "Summarize what the documentation says about concurrency.",
        "What kinds of errors does the manual warn about?",
        "Give an overview of the security advice across the library reference.",
        "What does the collection say about testing as a whole?",
    ],
)
def test_broad_questions_are_recognised(question: str) -> None:
    assert broad_question(question)


@pytest.mark.parametrize(
    "question",
    [
        "Which film whose director is younger, Forbidden Ground or Free Guy?",
        "Where was the Aldo Vance movie shot?",
        "What type of plant is the Tillandsia?",
        "What is the main theme song of the film Titanic called?",
        "How do I read a file line by line in Python?",
        "When did the common era begin?",
    ],
)
def test_deep_questions_are_not(question: str) -> None:
    assert not broad_question(question)
