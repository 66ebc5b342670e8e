"""Prompt texts of the ask loop (``*.prompt.md`` beside this module) and how the
question, memory cues and candidates are laid out for the LLM within a token budget."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from graphmind.ask.models import Candidate

HERE = Path(__file__).parent
CHARS_PER_TOKEN = 4
MIN_PASSAGE_CHARS = 200


@cache
def prompt(name: str) -> str:
    """The text of ``<name>.prompt.md``."""
    return (HERE / f"{name}.prompt.md").read_text(encoding="utf-8").strip()


@cache
def prompt_version() -> str:
    """A short hash of every prompt of the loop (recorded on the Agent node)."""
    digest = hashlib.sha256()
    for name in ("judge", "answer"):
        digest.update(prompt(name).encode("utf-8"))
    return digest.hexdigest()[:12]


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
) -> str:
    """Numbered passages, each cut to a fair share of the token budget; with ``profiles``,
    each followed by its evidence profile when it has one (profiles have their own budget)."""
    if not candidates:
        return "(no passages)"
    share = max(MIN_PASSAGE_CHARS, budget_tokens * CHARS_PER_TOKEN // len(candidates))
    blocks = []
    for number, c in enumerate(candidates, start=1):
        text = " ".join(c.text.split())
        if len(text) > share:
            text = text[: share - 1].rsplit(" ", 1)[0] + "…"
        block = f"[{number}] ({c.title}) {text}"
        if facts and (c.event_times or c.triplets):
            shown = c.event_times or c.triplets
            block += "\n    facts: " + "; ".join(shown[:4])
        if profiles and c.profile:
            block += "\n    " + c.profile
        blocks.append(block)
    return "\n".join(blocks)


def judge_messages(
    question: str,
    candidates: Sequence[Candidate],
    cues: Sequence[str],
    earlier_queries: Sequence[str],
    *,
    temporal: bool,
    budget_tokens: int,
) -> list[dict[str, str]]:
    """The judge's messages for one round."""
    parts = [f"Question: {question}"]
    if temporal:
        parts.append("This question is about time: only EXACT or well-supported dates count.")
    if cues:
        parts.append("What earlier rounds learned:\n" + "\n".join(f"- {c}" for c in cues))
    if earlier_queries:
        parts.append("Earlier queries: " + "; ".join(earlier_queries))
    if any(c.profile for c in candidates):
        parts.append(PROFILES_NOTE)
    parts.append("Candidates:\n" + passages(candidates, budget_tokens, profiles=True))
    return [
        {"role": "system", "content": prompt("judge")},
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
) -> list[dict[str, str]]:
    """The final answer's messages, from the whole trajectory."""
    parts = [f"Question: {question}"]
    if temporal:
        parts.append("Give dates as a year or YYYY-MM-DD, as the evidence states them.")
    if cues:
        parts.append("Notes from earlier reasoning:\n" + "\n".join(f"- {c}" for c in cues))
    if draft:
        parts.append(f"Draft answer: {draft}")
    parts.append("Evidence:\n" + passages(evidence, budget_tokens))
    return [
        {"role": "system", "content": prompt("answer")},
        {"role": "user", "content": "\n\n".join(parts)},
    ]
