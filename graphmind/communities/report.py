"""The community summary: a prompt file (``community.prompt.md``) and its output model."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, field_validator

PROMPT_FILE = Path(__file__).with_name("community.prompt.md")
MAX_TITLE_CHARS = 120
MAX_SUMMARY_CHARS = 1500
MAX_FACTS = 8
MAX_INPUT_CHARS = 6000  # entities and relations shown to the LLM, cut at a line


class CommunityReport(BaseModel):
    """What the LLM writes about one community."""

    title: str = Field(min_length=1, max_length=MAX_TITLE_CHARS)
    summary: str = Field(min_length=1, max_length=MAX_SUMMARY_CHARS)
    key_facts: list[str] = Field(default_factory=list)

    @field_validator("key_facts", mode="before")
    @classmethod
    def _cap(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [str(v).strip() for v in value if str(v).strip()][:MAX_FACTS]
        return value


@cache
def system_prompt() -> str:
    """The summarisation instructions."""
    return PROMPT_FILE.read_text(encoding="utf-8").strip()


def messages_for(
    entities: list[dict[str, Any]], relations: list[dict[str, Any]]
) -> list[dict[str, str]]:
    """The chat messages for one community, its input cut to a fixed budget."""
    lines = ["Entities:"]
    for e in entities:
        description = f": {e['description']}" if e.get("description") else ""
        lines.append(f"- {e['name']} ({e.get('type') or 'unknown'}){description}")
    lines.append("Relations:")
    lines += [f"- {r['subject']} {r['predicate']} {r['object']}" for r in relations if r]
    text = ""
    for line in lines:
        if len(text) + len(line) + 1 > MAX_INPUT_CHARS:
            break
        text += line + "\n"
    return [
        {"role": "system", "content": system_prompt()},
        {"role": "user", "content": text.strip()},
    ]


def embedding_text(report: CommunityReport) -> str:
    """What a community is embedded as."""
    return f"{report.title}\n{report.summary}"
