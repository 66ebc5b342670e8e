"""The loop's policies: the rules (the default) and reflect, with a scripted model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import asked_question
from graphmind.ask.options import AskOptions
from graphmind.config import load_settings
from graphmind.core.errors import ConfigError
from graphmind.llm.base import Message
from graphmind.store.base import GraphStore
from helpers.ask import FIRST_HOP, QUESTION, SECOND_HOP, candidates_in, loop, responder

HOP = "Where was Silent Harbor recorded?"


def reflecting(messages: list[Message]) -> str:
    """A capable model: answers the step it can ("Silent Harbor", the movie), then names
    the next hop when asked to reflect, answers that hop, and calls it complete."""
    if messages[-1]["content"].startswith("Reflect on your answer"):
        said = json.loads(messages[-2]["content"])["answer"]
        if said == "Port Ellis":
            return json.dumps({"complete": True})
        return json.dumps(
            {"complete": False, "next_question": HOP, "missing": "where it was recorded"}
        )
    found = candidates_in(messages)
    if HOP in asked_question(messages):
        second = [n for n, t in found.items() if SECOND_HOP in t]
        return json.dumps({"answer": "Port Ellis", "citations": second})
    first = [n for n, t in found.items() if FIRST_HOP in t]
    return json.dumps({"answer": "Silent Harbor", "citations": first})


def test_the_rules_are_the_default_policy() -> None:
    assert AskOptions().policy == "rules"


def test_the_policy_is_an_ask_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "graphmind.toml").write_text('[ask]\npolicy = "reflect"\n')
    assert load_settings().ask.policy == "reflect"
    (tmp_path / "graphmind.toml").write_text('[ask]\npolicy = "guess"\n')
    with pytest.raises(ConfigError, match="policy"):
        load_settings()


def test_reflect_asks_the_next_hop_the_model_names(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    asked = loop(corpus_store, tmp_path, reflecting, policy="reflect")
    decision = asked.ask(QUESTION)
    assert decision.answer == "Port Ellis" and not decision.abstained
    assert [r.queries for r in decision.rounds] == [[QUESTION], [QUESTION, HOP]]
    sent = asked.llm.provider.requests  # type: ignore[attr-defined]
    turns = [m[-1]["content"] for m in sent]
    assert sum(t.startswith("Reflect on your answer") for t in turns) == 2  # after each round
    assert not any(t.startswith("Check your answer") for t in turns)


def test_reflect_stops_when_the_model_calls_the_answer_complete(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    def done(messages: list[Message]) -> str:
        if messages[-1]["content"].startswith("Reflect on your answer"):
            return json.dumps({"complete": True})
        return reflecting(messages)

    decision = loop(corpus_store, tmp_path, done, policy="reflect").ask(QUESTION)
    assert decision.answer == "Silent Harbor" and len(decision.rounds) == 1


def test_the_rules_never_ask_the_model_to_reflect(corpus_store: GraphStore, tmp_path: Path) -> None:
    asked = loop(corpus_store, tmp_path, responder)
    decision = asked.ask(QUESTION)
    assert decision.answer == "Port Ellis" and len(decision.rounds) >= 2
    sent = asked.llm.provider.requests  # type: ignore[attr-defined]
    assert not any(m[-1]["content"].startswith("Reflect on your answer") for m in sent)
