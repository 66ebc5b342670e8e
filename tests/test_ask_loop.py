"""The evidence loop with a scripted LLM on a two-hop fixture corpus."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from buildkit import provider_of
from conftest import StoreFactory, asked_question
from graphmind.ask import loop as loop_module
from graphmind.ask.grading import ABSTAIN_ANSWER
from graphmind.ask.models import JUDGED_REASON_CHARS
from graphmind.ask.retrieve import RetrieveOptions, rank_lists
from graphmind.ask.rules.hops import first_hop
from graphmind.ask.steps import gather
from graphmind.core.errors import LLMError
from graphmind.llm.base import Message
from graphmind.llm.client import LLM
from graphmind.llm.scripted import ScriptedProvider
from graphmind.memory.decisions import read_decision
from graphmind.store.base import GraphStore
from helpers.ask import (
    BRIDGED,
    DOCS,
    FIRST_HOP,
    QUESTION,
    SECOND_HOP,
    asked_on_disk,
    built,
    candidates_in,
    check,
    chunk_of,
    is_check,
    loop,
    responder,
    titles_in,
)


def test_two_hop_question_needs_a_second_round(corpus_store: GraphStore, tmp_path: Path) -> None:
    decision = loop(corpus_store, tmp_path, evolve_graph=True).ask(QUESTION)
    first, second = decision.rounds[0], decision.rounds[1]
    assert len(decision.rounds) == 2
    assert first.judgement.draft_answer == "Silent Harbor"
    assert first.judgement.sufficiency == "PARTIAL" and first.judgement.missing
    assert chunk_of(corpus_store, "Silent Harbor") not in {c.id for c in first.candidates}
    assert second.queries == [QUESTION, "Silent Harbor recorded location"]
    assert chunk_of(corpus_store, "Silent Harbor") in {c.id for c in second.candidates}
    assert second.candidates[0].id == chunk_of(corpus_store, "Aldo Vance")  # carried, first
    assert second.judgement.sufficiency == "INFERRABLE"  # stated by one of two cited
    assert decision.answer == "Port Ellis" and not decision.abstained
    assert {c.chunk_id for c in decision.citations} == {
        chunk_of(corpus_store, "Aldo Vance"),
        chunk_of(corpus_store, "Silent Harbor"),
    }
    assert {c.title for c in decision.citations} == {"Aldo Vance", "Silent Harbor"}
    assert first.extracted > 0  # the cited chunk had no triplets: extracted at question time
    assert first.tokens > 0 and second.tokens > 0
    assert sum(r.tokens for r in decision.rounds) == decision.tokens
    assert (
        corpus_store.run_text(
            "MATCH (t:Triplet)-[:MENTIONED_IN]->(:Chunk)-[:PART_OF]->"
            "(:Document {title: 'Aldo Vance'}) RETURN count(t) AS n"
        ).records()[0]["n"]
        > 0
    )


@pytest.mark.parametrize("evolve", [False, True])
def test_a_later_round_reuses_the_questions_retrieval_unless_the_graph_changed(
    corpus_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, evolve: bool
) -> None:
    searched: list[str] = []

    def counted(store: GraphStore, query: str, *args: object, **kw: object) -> object:
        searched.append(query)
        return rank_lists(store, query, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(gather, "rank_lists", counted)
    decision = loop(corpus_store, tmp_path, evolve_graph=evolve).ask(QUESTION)
    assert [r.queries for r in decision.rounds] == [
        [QUESTION],
        [QUESTION, "Silent Harbor recorded location"],
    ]
    # round 2 searches the follow-up; the question again only when round 1's evolving
    # sub-graph wrote triplets (retrieval over the changed graph may differ)
    again = [QUESTION] if evolve else []
    assert searched == [QUESTION, *again, "Silent Harbor recorded location"]


def test_a_later_round_offers_the_follow_ups_nearest_passages_even_if_shown_before(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    """Round 1 showed the second hop but cited only the first (as a small model does): the
    follow-up query's own nearest passages come back in round 2, so the hop can be made."""

    def hop(messages: list[Message]) -> str:
        if is_check(messages):
            return check(messages)
        found = candidates_in(messages)
        first = [n for n, t in found.items() if FIRST_HOP in t]
        second = [n for n, t in found.items() if SECOND_HOP in t]
        content = messages[1]["content"]
        if "Still needed" in content and first and second:
            # the note is part of the question, before the passages: after them the
            # 1.5B answered the note ("Frankfurt" for whom Lise Meitner worked with)
            assert content.index("Still needed") < content.index("Evidence:")
            return json.dumps({"answer": "Port Ellis", "citations": first + second})
        return json.dumps({"answer": "Silent Harbor", "citations": first})

    decision = loop(corpus_store, tmp_path, hop, k=5).ask(QUESTION)
    harbor = chunk_of(corpus_store, "Silent Harbor")
    first, second = decision.rounds
    assert harbor in {c.id for c in first.candidates}  # shown in round 1, not cited
    assert second.candidates[1].id == harbor  # after the carried passage, the nearest
    assert decision.answer == "Port Ellis"


def test_round_one_shows_the_naive_baselines_passages_first(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    """Never worse than naive by construction: round 1 holds naive's passages, in its
    order, and adds the other retrievers' candidates after them."""
    naive = loop(corpus_store, tmp_path, mode="naive").ask(BRIDGED)
    looped = loop(corpus_store, tmp_path, extra=2, max_rounds=1).ask(BRIDGED)
    seen = [c.id for c in naive.rounds[0].candidates]
    first = [c.id for c in looped.rounds[0].candidates]
    assert first[: len(seen)] == seen and len(first) > len(seen)


def test_a_check_that_finds_the_answer_complete_stops(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    decision = loop(corpus_store, tmp_path, k=5, retrieve=RetrieveOptions(per_list=5)).ask(QUESTION)
    assert len(decision.rounds) == 1 and decision.answer == "Port Ellis"
    assert decision.rounds[0].judgement.sufficiency == "INFERRABLE"


def test_a_missing_link_that_repeats_the_answer_does_not_go_on(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    def repeats(messages: list[Message]) -> str:
        if is_check(messages):
            said = json.loads(messages[-2]["content"])["answer"]
            missing = f"The movie is {said}."
            return json.dumps({"complete": False, "missing": missing, "query": "more"})
        return responder(messages)

    decision = loop(corpus_store, tmp_path, repeats).ask(QUESTION)
    assert len(decision.rounds) == 1 and decision.answer == "Silent Harbor"


@pytest.mark.parametrize(
    "copied",
    [
        {"missing": "where Ana Roth was born", "query": "Ana Roth born in"},
        # pieced from the answer prompt's example, word by word
        {"missing": "1950", "query": "Ana Roth born in Graz"},
    ],
)
def test_a_check_that_copies_its_prompts_example_does_not_go_on(
    corpus_store: GraphStore, tmp_path: Path, copied: dict[str, str]
) -> None:
    """The 1.5B's check named the prompts' examples ("Ana Roth born in", "1950") as the
    missing link of an unrelated question; a second round searched for it and replaced a
    partly right answer. Such a diagnosis is dropped."""

    def copies(messages: list[Message]) -> str:
        if is_check(messages):
            return json.dumps({"complete": False, **copied})
        return responder(messages)

    decision = loop(corpus_store, tmp_path, copies).ask(QUESTION)
    assert len(decision.rounds) == 1 and decision.answer == "Silent Harbor"
    assert decision.rounds[0].judgement.missing == ""


def test_an_answer_copied_from_the_prompts_example_is_asked_again_as_a_next_turn(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    """The 1.5B answered "Graz" (the answer prompt example's answer) with every gold
    passage shown; such an answer, stated by no passage, is asked again as the next turn
    of the same conversation (its first turns sent again unchanged, so llama.cpp reads
    only the note). An answer the passages state is not asked again."""
    asked: list[list[Message]] = []

    def copies(messages: list[Message]) -> str:
        if messages[0]["content"].startswith("You answer") and not is_check(messages):
            asked.append(messages)
            if len(messages) == 2:
                return json.dumps({"answer": "Graz", "citations": [1]})
        return responder(messages)

    decision = loop(corpus_store, tmp_path, copies, max_rounds=1).ask(QUESTION)
    assert decision.answer == "Silent Harbor"
    first, again = asked
    assert again[0] == first[0] and "Graz" in first[0]["content"]  # the example stays
    assert again[1]["content"].startswith(first[1]["content"])  # + the schema instruction
    assert again[2]["role"] == "assistant" and json.loads(again[2]["content"])["answer"] == "Graz"
    note = again[3]
    assert note["role"] == "user" and '"Graz" is the answer of the example' in note["content"]

    def records(messages: list[Message]) -> str:
        if messages[0]["content"].startswith("You answer") and not is_check(messages):
            asked.append(messages)
        return responder(messages)

    asked.clear()
    plain = loop(corpus_store, tmp_path / "plain", records, max_rounds=1).ask(QUESTION)
    assert plain.answer == "Silent Harbor" and len(asked) == 1


def test_an_answer_of_the_wrong_kind_is_asked_again_as_a_next_turn(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    """A yes/no question answered with a name ("Disney" to "Are Aladdin and Song of the
    South produced by the same company?") is asked again as the next turn, with a note
    that it asks yes or no; the answer then given stands."""
    question = "Did Aldo Vance direct Silent Harbor?"
    asked: list[list[Message]] = []

    def names(messages: list[Message]) -> str:
        if is_check(messages):
            return json.dumps({"complete": True, "missing": "", "query": ""})
        asked.append(messages)
        answer = "Aldo Vance" if len(messages) == 2 else "yes"
        cited = [n for n, t in candidates_in(messages).items() if "Aldo Vance directed" in t]
        return json.dumps({"answer": answer, "citations": cited})

    decision = loop(corpus_store, tmp_path, names, max_rounds=1).ask(question)
    assert decision.answer == "yes"
    first, again = asked
    assert again[1]["content"].startswith(first[1]["content"])  # its first turns again
    assert json.loads(again[2]["content"])["answer"] == "Aldo Vance"
    assert (
        again[3]["content"]
        == 'The question asks yes or no, not "Aldo Vance": answer "yes" or "no".'
    )


def test_a_weak_last_round_keeps_the_grounded_earlier_answer(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    """Round 2 finds nothing it can cite: the grounded round-1 answer stands."""
    calls = {"answer": 0}

    def second_round_abstains(messages: list[Message]) -> str:
        if not is_check(messages) and messages[0]["content"].startswith("You answer"):
            calls["answer"] += 1
            if calls["answer"] > 1:
                return json.dumps({"answer": "", "citations": [], "abstain": True})
        return responder(messages)

    decision = loop(corpus_store, tmp_path, second_round_abstains).ask(QUESTION)
    assert len(decision.rounds) == 2 and decision.rounds[1].judgement.sufficiency == "NONE"
    assert decision.answer == "Silent Harbor" and not decision.abstained
    assert [c.title for c in decision.citations] == ["Aldo Vance"]


def test_an_ungrounded_later_answer_does_not_replace_a_grounded_one(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    calls = {"answer": 0}

    def guesses(messages: list[Message]) -> str:
        if not is_check(messages) and messages[0]["content"].startswith("You answer"):
            calls["answer"] += 1
            if calls["answer"] > 1:  # an answer no cited passage states
                return json.dumps({"answer": "Lisbon", "citations": [1]})
        return responder(messages)

    decision = loop(corpus_store, tmp_path, guesses).ask(QUESTION)
    assert decision.rounds[1].judgement.draft_answer == "Lisbon"
    assert decision.rounds[1].judgement.confidence == 0.0
    assert decision.answer == "Silent Harbor"


def test_round_one_sends_the_naive_baselines_prompt(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    """With nothing added to round 1 (the default), its answer call is exactly naive's:
    same passages, same order, same prompt (a cache or a KV prefix answers it once)."""
    sent: list[list[Message]] = []

    def records(messages: list[Message]) -> str:
        if not is_check(messages) and messages[0]["content"].startswith("You answer"):
            sent.append(messages)
        return responder(messages)

    loop(corpus_store, tmp_path / "naive", records, mode="naive").ask(QUESTION)
    loop(corpus_store, tmp_path / "loop", records, max_rounds=1).ask(QUESTION)
    assert len(sent) == 2 and sent[0] == sent[1]


def test_an_answer_that_only_repeats_the_question_goes_on_and_is_replaced(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    """A name from the question is no answer, even when the model's check calls it
    complete: the loop goes on, telling the next answer call that the question asks about
    that name (else the 1.5B gives it again), and a supported later answer replaces it."""
    note = "The answer is not Aldo Vance: the question asks about Aldo Vance."

    def echoes(messages: list[Message]) -> str:
        if is_check(messages) and json.loads(messages[-2]["content"])["answer"] == "Aldo Vance":
            query = "Silent Harbor recorded location"
            return json.dumps({"complete": True, "missing": "", "query": query})
        answering = not is_check(messages) and messages[0]["content"].startswith("You answer")
        if answering and note not in messages[1]["content"]:
            found = candidates_in(messages)
            first = [n for n, t in found.items() if FIRST_HOP in t]
            return json.dumps({"answer": "Aldo Vance", "citations": first})
        return responder(messages)

    decision = loop(corpus_store, tmp_path, echoes).ask(QUESTION)
    assert len(decision.rounds) == 2
    assert decision.rounds[0].judgement.draft_answer == "Aldo Vance"
    assert decision.answer == "Port Ellis"


def test_a_later_answer_that_does_not_build_on_the_kept_one_does_not_replace_it(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    """Round 2 answers from a passage that never mentions round 1's (supported) answer:
    that is a different guess, not the next hop, so round 1's answer stands."""
    calls = {"answer": 0}

    def drifts(messages: list[Message]) -> str:
        if not is_check(messages) and messages[0]["content"].startswith("You answer"):
            calls["answer"] += 1
            if calls["answer"] > 1:
                found = candidates_in(messages)
                other = [n for n, t in found.items() if "Dunmore" in t]
                return json.dumps({"answer": "Dunmore", "citations": other})
        return responder(messages)

    decision = loop(corpus_store, tmp_path, drifts, follow_up=5).ask(QUESTION)
    assert len(decision.rounds) == 2
    assert decision.rounds[1].judgement.draft_answer == "Dunmore"
    assert decision.rounds[1].judgement.confidence == 1.0  # stated by what it cites
    assert decision.answer == "Silent Harbor"


def test_a_bridge_answer_asks_the_question_that_remains_next(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    """Self-ask without asking the model to decompose: "Silent Harbor" comes from the
    passage titled "Aldo Vance" and the question still asks a word no cited passage says
    ("city"), so round 2 searches for and asks the question with the answer in place of
    "the movie by Aldo Vance" (asked again with a note when the answer is the hop's own
    name); its answer replaces it, even though the model's check called the first answer
    complete, and cites the passage that states it."""
    hop = "In which city was Silent Harbor shot?"
    questions: list[str] = []
    users: list[str] = []

    def self_ask(messages: list[Message]) -> str:
        if is_check(messages):
            return json.dumps({"complete": True, "missing": "", "query": ""})
        if messages[0]["content"].startswith("You answer"):
            asked = asked_question(messages)
            questions.append(asked)
            users.append(messages[1]["content"])
            if "Silent Harbor" in asked:  # the hop alone is a one-hop question, but the
                # small model first answers with the hop's own name, then cites the wrong
                # passage: the one that says the answer is cited instead
                found = candidates_in(messages)
                if "The answer is not Silent Harbor" not in messages[1]["content"]:
                    return json.dumps({"answer": "Silent Harbor", "citations": [1]})
                wrong = [n for n, t in found.items() if SECOND_HOP not in t]
                return json.dumps({"answer": "Port Ellis", "citations": wrong[:1]})
            found = [n for n, t in candidates_in(messages).items() if FIRST_HOP in t]
            return json.dumps({"answer": "Silent Harbor", "citations": found})
        return responder(messages)

    decision = loop(corpus_store, tmp_path, self_ask).ask(BRIDGED)
    assert questions == [f"Question: {BRIDGED}", f"Question: {hop}", f"Question: {hop}"]
    # the note comes after the passages: the hop asked again repeats its first prompt
    hop_asked, again = users[1:]
    assert again.startswith(hop_asked + "\n\nNotes from earlier reasoning:\n- The answer is not")
    assert decision.rounds[1].queries == [BRIDGED, hop]
    assert decision.rounds[1].candidates[1].title == "Silent Harbor"  # the bridge's, first
    assert decision.answer == "Port Ellis"
    assert [c.title for c in decision.citations] == ["Silent Harbor"]


def _by_question(
    asked: list[str],
    replies: list[tuple[str, str, str]],
    matches: Callable[[str, str], bool],
) -> Callable[[list[Message]], str]:
    """A model that answers by the question asked: the first (said, cue, answer) whose
    ``said`` matches it answers, citing the passages holding ``cue``; every check says
    complete. Each question asked (or "check") is appended to ``asked``."""

    def respond(messages: list[Message]) -> str:
        if is_check(messages):
            asked.append("check")
            return json.dumps({"complete": True, "missing": "", "query": ""})
        question = asked_question(messages).removeprefix("Question: ")
        asked.append(question)
        found = candidates_in(messages)
        for said, cue, reply in replies:
            if matches(said, question):
                cited = [n for n, t in found.items() if cue in t]
                return json.dumps({"answer": reply, "citations": cited})
        return json.dumps({"answer": "", "citations": [], "abstain": True})

    return respond


def test_a_hop_whose_answer_is_a_bridge_too_hops_again(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    """A chain of three: the hop's answer ("Port Ellis") is a bridge of the hop's own
    question, so round 3 asks what remains; a round that hops goes on whatever a check
    would say, so no answer is checked, and with two rounds the chain stops at the
    second."""
    chained = "In which county is the city where the movie by Aldo Vance was shot?"
    hop = "In which county is the city where Silent Harbor was shot?"
    last = "In which county is Port Ellis?"
    town = "Port Ellis is a town of Wexmoor County."
    store = built(open_store(), tmp_path, {**DOCS, "Port Ellis": town})
    asked: list[str] = []

    chain = _by_question(
        asked,
        [
            ("Port Ellis", town, "Wexmoor County"),
            ("Silent Harbor", SECOND_HOP, "Port Ellis"),
            ("Aldo Vance", FIRST_HOP, "Silent Harbor"),
        ],
        lambda said, question: said in question,
    )

    decision = loop(store, tmp_path, chain, max_rounds=3).ask(chained)
    assert asked == [chained, hop, last]
    assert decision.answer == "Wexmoor County" and len(decision.rounds) == 3
    assert [c.title for c in decision.citations] == ["Port Ellis"]
    asked.clear()
    two = loop(store, tmp_path / "two", chain, max_rounds=2).ask(chained)
    assert asked == [chained, hop] and two.answer == "Port Ellis"


def test_an_answer_that_is_no_bridge_asks_the_first_hop_then_the_rest(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    """Round 1's answer is a guess from the wrong passage, no bridge: round 2 asks the
    question's first hop (its description of the movie), round 3 the question with that
    description replaced by round 2's answer. Round 2 answered a part of the question, so
    it is never the answer; round 3's replaces the guess. With two rounds there is no
    room for both hops: round 1 is checked as before."""
    first = "What is the name of the movie by Aldo Vance?"
    rest = "In which city was Silent Harbor shot?"
    asked: list[str] = []

    guesses = _by_question(
        asked,
        [
            (first, FIRST_HOP, "Silent Harbor"),
            (rest, SECOND_HOP, "Port Ellis"),
            (BRIDGED, "Mara Quill", "Dunmore"),
        ],
        lambda said, question: said == question,
    )

    decision = loop(corpus_store, tmp_path, guesses, max_rounds=3).ask(BRIDGED)
    assert asked == [BRIDGED, first, rest]
    assert [r.queries for r in decision.rounds] == [[BRIDGED], [BRIDGED, first], [BRIDGED, rest]]
    assert decision.answer == "Port Ellis"
    assert [c.title for c in decision.citations] == ["Silent Harbor"]
    asked.clear()
    two = loop(corpus_store, tmp_path / "two", guesses, max_rounds=2).ask(BRIDGED)
    assert asked[:2] == [BRIDGED, "check"] and first not in asked
    assert two.answer == "Dunmore"


def test_a_supported_answer_that_is_no_bridge_is_checked_when_its_passage_links_it(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    """Round 1's answer, no bridge, is stated by the passage it cites. When that passage
    also names what the question names, the answer may be the answer: it is checked as
    the next turn of its call, and the first hop is not asked (on MuSiQue, hopping from
    such answers replaced right ones: "Bill Pullman" became "Harvey Keitel"). When it
    names nothing the question names, the answer is still a guess, and the first hop is
    asked ("1914", from Franz Ferdinand's passage, for the mother of Joseph Ferdinand)."""
    linked = "In which city was the movie by Mara Quill shot?"
    asked: list[str] = []
    stated = _by_question(
        asked,
        [
            (linked, "Mara Quill shot", "Dunmore"),
            (BRIDGED, "Port Ellis", "Port Ellis"),
            ("What is the name of the movie", "Aldo Vance", "Silent Harbor"),
        ],
        lambda said, question: question.startswith(said),
    )
    assert first_hop(linked) == "What is the name of the movie by Mara Quill?"

    checked = loop(corpus_store, tmp_path, stated, k=5, max_rounds=3).ask(linked)
    assert checked.rounds[0].judgement.confidence == 1.0  # its cited passage states it
    assert asked == [linked, "check"]
    assert checked.answer == "Dunmore" and len(checked.rounds) == 1

    asked.clear()
    guess = loop(corpus_store, tmp_path / "guess", stated, k=5, max_rounds=3).ask(BRIDGED)
    assert guess.rounds[0].judgement.confidence == 1.0  # stated, but not about Aldo Vance
    assert asked[:2] == [BRIDGED, "What is the name of the movie by Aldo Vance?"]


def test_a_question_about_someone_a_name_owns_asks_for_that_person_first(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    """ "When did Margaret Verney's father die?": round 1 answers her own death year from
    her passage, which states it and names her, so by the check rule it would stand; but
    that passage is about the owner, not the father, so the first hop asks for the father
    by name and round 3 asks when he died. A first hop that answers with the owner
    again names no one to ask about."""
    question = "When did Margaret Verney's father die?"
    first = "What is the name of Margaret Verney's father?"
    rest = "When did John Hay-Williams die?"
    docs = {
        "Margaret Verney": "Margaret Verney, the daughter of John Hay-Williams, died in 1930.",
        "John Hay-Williams": "John Hay-Williams, a Welsh baronet, died in 1859.",
        "Verney papers": "Margaret Verney's parent is named in the family papers.",
    }
    store = built(open_store(), tmp_path, docs)
    asked: list[str] = []
    model = _by_question(
        asked,
        [
            (first, "daughter of John", "John Hay-Williams"),
            (rest, "died in 1859", "1859"),
            (question, "died in 1930", "1930"),
        ],
        lambda said, question: said == question,
    )
    shown: dict[str, list[str]] = {}

    def model_seeing(messages: list[Message]) -> str:
        if not is_check(messages):
            said = asked_question(messages).removeprefix("Question: ")
            shown[said] = sorted(titles_in(messages))
        return model(messages)

    decision = loop(store, tmp_path, model_seeing, max_rounds=3).ask(question)
    assert asked == [question, first, rest]
    assert decision.answer == "1859"
    assert [c.title for c in decision.citations] == ["John Hay-Williams"]
    # each hop reads the passages that name what it asks about: the first hop those
    # naming Margaret Verney, the next those naming her father
    assert shown[first] == ["Margaret Verney", "Verney papers"]
    assert shown[rest] == ["John Hay-Williams", "Margaret Verney"]

    # a first hop answered with the owner and a relation word names no one: like a
    # first hop with no answer, it ends the loop ("When did Margaret Verney's parent
    # die?" is not asked), and round 1's answer stands
    asked.clear()
    restated = _by_question(
        asked,
        [
            (first, "family papers", "Margaret Verney's parent"),
            (question, "died in 1930", "1930"),
        ],
        lambda said, question: said == question,
    )
    again = loop(store, tmp_path / "again", restated, max_rounds=3).ask(question)
    assert asked == [question, first]
    assert again.answer == "1930"


def test_no_call_of_the_loop_can_run_to_the_general_token_cap(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    built = loop(corpus_store, tmp_path)
    built.llm = LLM(ScriptedProvider(responder), cache=None, max_tokens=1024)
    built.ask(QUESTION)
    caps = provider_of(built.llm).max_tokens
    assert caps and max(caps) <= 128


def test_the_decision_is_in_the_graph(corpus_store: GraphStore, tmp_path: Path) -> None:
    decision = loop(corpus_store, tmp_path).ask(QUESTION)
    judged = {r.candidates[v.ref - 1].id for r in decision.rounds for v in r.judgement.verdicts}
    assert all(len(r.judgement.verdicts) == len(r.candidates) for r in decision.rounds)
    assert sum(len(r.judgement.verdicts) for r in decision.rounds) > len(judged)  # re-judged
    edges = corpus_store.run_text(
        "MATCH (:Decision {id: $id})-[e:EVALUATED]->(c:Chunk) RETURN c.id AS id, e.reason AS r",
        {"id": decision.id},
    ).records()
    assert sorted(e["id"] for e in edges) == sorted(judged)  # one edge per evidence item
    assert all(e["r"] for e in edges)  # every verdict has its reason
    trace = read_decision(corpus_store, decision.id)
    assert trace is not None and trace.answer == "Port Ellis" and len(trace.rounds) == 2
    assert trace.rounds[0].judgement.missing == "Where was Silent Harbor recorded?"
    two = trace.rounds[1]
    verdicts = {c.title: getattr(two.verdict_of(c.id), "verdict", None) for c in two.candidates}
    assert verdicts["Aldo Vance"] == "used" and verdicts["Silent Harbor"] == "used"


def test_absent_answer_abstains(corpus_store: GraphStore, tmp_path: Path) -> None:
    decision = loop(corpus_store, tmp_path).ask("Who founded the Zorblax Institute?")
    assert decision.abstained and decision.answer == ABSTAIN_ANSWER
    assert decision.sufficiency == "NONE" and decision.citations == []
    assert len(decision.rounds) == 2  # it looked again with the check's query
    assert decision.rounds[1].queries[1] == "Zorblax founder"
    assert corpus_store.counts()["Decision"] == 1


def test_llm_failure_in_round_two_writes_nothing(corpus_store: GraphStore, tmp_path: Path) -> None:
    calls = {"answer": 0}

    def failing(messages: list[Message]) -> str:
        if not is_check(messages) and messages[0]["content"].startswith("You answer"):
            calls["answer"] += 1
            if calls["answer"] > 1:
                raise LLMError("the endpoint went away")
        return responder(messages)

    before = (corpus_store.counts(), corpus_store.relationship_count())
    with pytest.raises(LLMError):
        loop(corpus_store, tmp_path, failing).ask(QUESTION)
    assert (corpus_store.counts(), corpus_store.relationship_count()) == before


def test_judged_mode_keeps_the_models_verdicts_and_reasons(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    systems: list[str] = []

    def judged(messages: list[Message]) -> str:
        assert messages[0]["content"].startswith("You judge evidence")
        systems.append(messages[0]["content"])
        found = candidates_in(messages)
        verdicts = [
            {"ref": n, "verdict": "used", "reason": "names the director's movie"}
            if FIRST_HOP in t
            else {"ref": n, "verdict": "rejected", "reason": "another movie"}
            for n, t in found.items()
        ]
        copied = "Blue Fields" if "Example." in messages[0]["content"] else "Silent Harbor"
        return json.dumps({"verdicts": verdicts, "answer": copied})

    decision = loop(corpus_store, tmp_path, judged, mode="judged").ask(QUESTION)
    (only,) = decision.rounds
    reasons = {c.title: only.verdict_of(c.id) for c in only.candidates}
    assert reasons["Aldo Vance"] is not None and reasons["Aldo Vance"].reason.startswith("names")
    assert {v.reason for t, v in reasons.items() if t != "Aldo Vance" and v} == {"another movie"}
    assert decision.answer == "Silent Harbor" and decision.mode == "judged"
    assert [c.title for c in decision.citations] == ["Aldo Vance"]
    # "Blue Fields" is the prompt example's book and no passage's: asked again without it
    assert len(systems) == 2 and "Blue Fields" in systems[0] and "Blue Fields" not in systems[1]


def test_the_judged_call_bounds_its_verdicts_to_the_passages(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    """The schema allows one verdict per passage (the local grammar then closes the list:
    the 1.5B had judged passages 11, 12, ... of 10 until the token cap and lost its
    answer) and no confidence delta; a model that runs on anyway keeps its answer."""

    def running_on(messages: list[Message]) -> str:
        count = len(candidates_in(messages))
        verdicts = [
            {"ref": n, "verdict": "used", "reason": "names the movie " * 20}
            for n in range(1, count + 6)
        ]
        return json.dumps({"verdicts": verdicts, "answer": "Silent Harbor"})

    asking = loop(corpus_store, tmp_path, running_on, mode="judged")
    decision = asking.ask(QUESTION)
    (only,) = decision.rounds
    schema = provider_of(asking.llm).schemas[-1]
    assert schema is not None
    assert schema["properties"]["verdicts"]["maxItems"] == len(only.candidates) == 3
    assert "confidence_delta" not in json.dumps(schema)
    assert decision.answer == "Silent Harbor"
    assert [v.ref for v in only.judgement.verdicts] == [1, 2, 3]
    assert all(len(v.reason) == JUDGED_REASON_CHARS for v in only.judgement.verdicts)


def test_naive_mode_is_recorded_too(corpus_store: GraphStore, tmp_path: Path) -> None:
    decision = loop(corpus_store, tmp_path, mode="naive").ask(QUESTION)
    assert decision.mode == "naive" and len(decision.rounds) == 1
    assert corpus_store.counts()["Decision"] == 1


def test_graphmind_trace_prints_a_past_decision(tmp_path: Path, store_env: dict[str, str]) -> None:
    decision, cli = asked_on_disk(tmp_path, store_env)
    shown = cli("trace", decision.id)
    assert shown.returncode == 0, shown.stderr
    for text in (
        QUESTION,
        "Port Ellis",
        "PARTIAL",
        "INFERRABLE",
        "Where was Silent Harbor recorded?",
        "cited for the answer 'Silent Harbor'",
        "not cited for the answer",
    ):
        assert text in shown.stdout, text
    as_json = cli("trace", decision.id, "--json")
    assert json.loads(as_json.stdout)["answer"] == "Port Ellis"
    missing = cli("trace", "nope")
    assert missing.returncode == 3 and "no decision 'nope'" in missing.stderr


def test_the_loop_module_still_exports_the_names_it_held_before_the_split() -> None:
    assert {"AskLoop", "AskOptions", "Mode", "grade", "bridge_hop"} <= set(loop_module.__all__)
    assert all(hasattr(loop_module, name) for name in loop_module.__all__)
