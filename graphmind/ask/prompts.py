"""Prompt texts of the ask loop (``*.prompt.md`` beside this module) and how the
question, memory cues and candidates are laid out for the LLM within a token budget."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from graphmind.ask.models import Answer
from graphmind.core.decision import Candidate
from graphmind.core.text import CHARS_PER_TOKEN
from graphmind.llm.base import schema_instruction, with_instruction
from graphmind.llm.client import output_schema

HERE = Path(__file__).parent
MIN_PASSAGE_CHARS = 200  # every passage shows at least this much, however many there are
SHOWN_FACTS = 4  # facts (event times or triplets) shown under a passage


@cache
def prompt(name: str) -> str:
    """The text of ``<name>.prompt.md``."""
    return (HERE / f"{name}.prompt.md").read_text(encoding="utf-8").strip()


@cache
def prompt_version() -> str:
    """A short hash of every prompt of the loop (recorded on the Agent node)."""
    digest = hashlib.sha256()
    for name in ("judged", "answer", "check", "explain", "same", "broad_map", "broad_reduce"):
        digest.update(prompt(name).encode("utf-8"))
    return digest.hexdigest()[:12]


EXAMPLE = "\n\nExample."  # where a prompt's worked example starts (it runs to the end)


def example_text(name: str) -> str:
    """The worked example at the end of prompt ``name`` ("" if it has none)."""
    text = prompt(name)
    return text[text.index(EXAMPLE) :] if EXAMPLE in text else ""


def without_example(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    """The messages with the system prompt's worked example left out."""
    return [
        {**m, "content": m["content"].split(EXAMPLE, 1)[0]} if m["role"] == "system" else m
        for m in messages
    ]


PROFILES_NOTE = (
    "Some candidates carry an [EVIDENCE PROFILE]: how answers that were later confirmed "
    "correct judged that passage before. Treat it as a prior, and still judge each passage "
    "against this question."
)


def passages(
    candidates: Sequence[Candidate],
    budget_tokens: int,
    *,
    facts: bool = True,
    profiles: bool = False,
    first: int = 1,
) -> str:
    """Numbered passages (from ``first``), each cut to a fair share of the token budget;
    with ``profiles``, each followed by its evidence profile when it has one (profiles
    have their own budget)."""
    if not candidates:
        return "(no passages)"
    share = max(MIN_PASSAGE_CHARS, budget_tokens * CHARS_PER_TOKEN // len(candidates))
    blocks = []
    for number, c in enumerate(candidates, start=first):
        text = " ".join(c.text.split())
        if len(text) > share:
            text = text[: share - 1].rsplit(" ", 1)[0] + "…"
        block = f"[{number}] ({c.title}) {text}"
        if facts and (c.event_times or c.triplets):
            shown = c.event_times or c.triplets
            block += "\n    facts: " + "; ".join(shown[:SHOWN_FACTS])
        if profiles and c.profile:
            block += "\n    " + c.profile
        blocks.append(block)
    return "\n".join(blocks)


def judged_messages(
    question: str, candidates: Sequence[Candidate], *, temporal: bool, budget_tokens: int
) -> list[dict[str, str]]:
    """The one-call judged answer's messages (ROZA's vanilla RAG): a verdict with a
    reason for every passage, and the answer. With no evidence profile among the
    candidates, the prompt is the same whatever the memory mode."""
    parts = [f"Question: {question}"]
    if temporal:
        parts.append(
            "Give a date as the passages or their titles state it: day, month name and "
            "year, or month and year, or a year."
        )
    if any(c.profile for c in candidates):
        parts.append(PROFILES_NOTE)
    parts.append("Passages:\n" + passages(candidates, budget_tokens, profiles=True))
    return [
        {"role": "system", "content": prompt("judged")},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


def answer_messages(
    question: str,
    evidence: Sequence[Candidate],
    cues: Sequence[str],
    draft: str,
    *,
    temporal: bool,
    budget_tokens: int,
    notes_last: bool = False,
) -> list[dict[str, str]]:
    """An answer call's messages: the question, notes and numbered passages (with their
    evidence profiles, when any has one). The loop's rounds and the naive baseline share
    this layout, so with the same passages they send the same prompt. ``notes_last`` puts
    the notes after the passages: a call asked again with a note over the same passages
    then repeats the first call's prompt up to the note, and llama.cpp reads only that
    (before its passages, a note on what is still needed is read as part of the question;
    after them, the 1.5B answered the note: "Frankfurt" for whom Lise Meitner worked with)."""
    parts = [f"Question: {question}"]
    if temporal:
        parts.append("Give dates as a year or YYYY-MM-DD, as the evidence states them.")
    notes = []
    if cues:
        notes.append("Notes from earlier reasoning:\n" + "\n".join(f"- {c}" for c in cues))
    if draft:
        notes.append(f"Draft answer: {draft}")
    profiles = [PROFILES_NOTE] if any(c.profile for c in evidence) else []
    shown = "Evidence:\n" + passages(evidence, budget_tokens, profiles=True)
    parts += [*profiles, shown, *notes] if notes_last else [*notes, *profiles, shown]
    return [
        {"role": "system", "content": prompt("answer")},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


def check_messages(
    asked: list[dict[str, str]], answer: Answer, *, temporal: bool
) -> list[dict[str, str]]:
    """The check of an answer, as the next turn of the conversation that produced it
    (see ``next_turn``)."""
    check = prompt("check")
    if temporal:
        check += "\nThe question is about time: a date counts only when a passage states it."
    return next_turn(asked, answer, check)


def same_messages(first: str, second: str) -> list[dict[str, str]]:
    """Whether two answers name one country ("Italy", "Italian")."""
    return [
        {"role": "system", "content": prompt("same")},
        {"role": "user", "content": f"First: {first}\nSecond: {second}"},
    ]


def reflect_messages(asked: list[dict[str, str]], answer: Answer) -> list[dict[str, str]]:
    """The reflect policy's question about an answer (complete, or the next hop's
    question), as the next turn of the conversation that produced it."""
    return next_turn(asked, answer, prompt("reflect"))


def explain_messages(
    asked: list[dict[str, str]],
    answer: Answer,
    more: Sequence[Candidate] = (),
    *,
    shown: int = 0,
    budget_tokens: int = 0,
) -> list[dict[str, str]]:
    """The full answer's call, as the next turn of the conversation whose short answer it
    explains: the passages keep their numbers and a prefix-caching model reads only the
    new turn. ``more``: passages other rounds used, numbered after the conversation's
    ``shown`` ones, in that turn (``budget_tokens`` for them)."""
    if not more:
        return next_turn(asked, answer, prompt("explain"))
    listed = passages(more, budget_tokens, first=shown + 1)
    turn = f"More passages the search found:\n{listed}\n\n{prompt('explain')}"
    return next_turn(asked, answer, turn)


def example_copied_messages(asked: list[dict[str, str]], answer: Answer) -> list[dict[str, str]]:
    """An answer call asked again, as the next turn of its conversation, when its answer
    is the worked example's ("Graz") and no passage's. Asked again without the example
    instead, the 1.5B read the whole prompt once more (20-30 s on 2 cores); as a next
    turn it reads only the note."""
    note = (
        f'"{answer.answer}" is the answer of the example in the instructions, not one these '
        "passages give. Answer the question from the passages, or abstain if they do not "
        "answer it."
    )
    return next_turn(asked, answer, note)


def next_turn(asked: list[dict[str, str]], answer: Answer, text: str) -> list[dict[str, str]]:
    """The answer call's conversation with its answer and a new user turn. The first
    turns are exactly what the call sent, its schema instruction included (the local
    provider puts it at the end of the last user turn), and the answer is its compact
    JSON, as the model writes it: llama.cpp, or a server that caches prompt prefixes,
    then reads only the new turn."""
    shown = with_instruction(asked, schema_instruction(output_schema(Answer)))
    return [
        *shown,
        {"role": "assistant", "content": answer.model_dump_json()},
        {"role": "user", "content": text},
    ]
