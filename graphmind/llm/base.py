"""The provider interface: one chat completion that asks for JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol

from graphmind.core.errors import LLMError
from graphmind.llm.odds import Odds, OddsRequest

Message = dict[str, str]
"""One chat message: ``{"role": "system" | "user" | "assistant", "content": "..."}``."""


@dataclass
class Completion:
    """A model's answer and what it cost."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    model: str
    retries: int = 0
    """Transport retries (rate limits, 5xx, timeouts) spent before this answer; not cached."""
    odds: Odds | None = None
    """When asked with ``odds``: each asked field's options' log-probabilities where its
    value began (``graphmind.llm.odds``); None where the provider cannot read them."""


class Provider(Protocol):
    """A chat model. ``complete`` always asks for JSON.

    With ``schema`` (a JSON schema of the expected output) a provider that
    ``supports_schema`` constrains the output to it; without one, or where the
    backend cannot, it asks for any JSON (JSON mode, else instructions in the
    prompt). ``model_id`` identifies the model in cache keys; ``concurrency`` is
    how many calls may usefully run at once (1 for an in-process model);
    ``in_process``: the model runs in this process (on its CPU), not at an endpoint.
    ``odds`` asks for the log-probabilities of some fields' options (``Completion.odds``),
    where the provider can read them.
    Errors are LLMError: LLMRequestError when this one request was refused.
    """

    model_id: str
    supports_schema: bool
    concurrency: int
    in_process: bool

    def complete(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any] | None,
        max_tokens: int,
        temperature: float,
        odds: OddsRequest | None = None,
    ) -> Completion:
        """One chat completion."""
        ...


class LLMRequestError(LLMError):
    """The model refused this request (too long for its context, rejected as invalid)."""


def schema_instruction(schema: dict[str, Any] | None) -> str:
    """The prompt text that stands in for server-side structured output (without the
    model's docstring: a small model copies it into its answer)."""
    if schema is None:
        return "Answer with only a JSON object: no explanation, no code fences."
    if schema.get("examples"):  # the model's prompt names the fields; the grammar holds them
        return (
            "Answer with only a JSON value of this form, with no explanation and no code "
            "fences:\n" + json.dumps(schema["examples"][0], separators=(",", ":"))
        )
    shown = {k: v for k, v in compact_schema(schema).items() if k != "description"}
    return (
        "Answer with only a JSON value that matches this JSON schema, with no explanation "
        "and no code fences:\n" + json.dumps(shown, separators=(",", ":"))
    )


_NAMED_SCHEMAS = frozenset({"properties", "$defs", "definitions", "patternProperties"})


def compact_schema(node: Any, *, names: bool = False) -> Any:
    """A JSON schema without ``title`` keywords (pydantic adds one to every field)."""
    if isinstance(node, dict):
        if names:  # keys are property or definition names, values are schemas
            return {key: compact_schema(value) for key, value in node.items()}
        return {
            key: compact_schema(value, names=key in _NAMED_SCHEMAS)
            for key, value in node.items()
            if key != "title"
        }
    if isinstance(node, list):
        return [compact_schema(item) for item in node]
    return node


def with_instruction(messages: list[Message], instruction: str) -> list[Message]:
    """``messages`` with ``instruction`` appended to the last user message.

    The instruction (the output schema) differs between tasks, so it goes last: calls
    that share a system prompt and a long first turn (the passages) then share a prompt
    prefix, which llama.cpp and prefix-caching servers do not compute again. Calls that
    share only their system turn (triplet extraction, one passage each) put it there
    themselves, and it is not repeated.
    """
    if any(m.get("role") == "system" and instruction in m["content"] for m in messages):
        return messages  # the caller put it first, for calls that share only the system turn
    if messages and messages[-1].get("role") == "user":
        last = {**messages[-1], "content": messages[-1]["content"] + "\n\n" + instruction}
        return [*messages[:-1], last]
    return [*messages, {"role": "user", "content": instruction}]
