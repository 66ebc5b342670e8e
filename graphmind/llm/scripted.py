"""Providers that answer without a model: from a function, a sequence or recorded answers.

For tests and benchmarks: zero latency, deterministic token counts (about four
characters a token), every request kept for inspection.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from graphmind.core.errors import LLMError
from graphmind.core.text import CHARS_PER_TOKEN
from graphmind.llm.base import Completion, Message
from graphmind.llm.odds import OddsRequest

Responder = Callable[[list[Message]], str | Completion]


def estimate_tokens(text: str) -> int:
    """A deterministic token estimate: one token per ``CHARS_PER_TOKEN`` characters, at
    least one."""
    return max(1, len(text) // CHARS_PER_TOKEN)


class ScriptedProvider:
    """Answers each request with ``responder(messages)``: text, or a full Completion.

    ``calls`` counts requests; ``requests``, ``schemas`` and ``max_tokens`` keep what each asked;
    ``in_process`` stands in for an offline model (a build's ``extract="auto"`` is then fast).
    """

    def __init__(
        self,
        responder: Responder,
        *,
        model_id: str = "scripted",
        supports_schema: bool = True,
        concurrency: int = 8,
        in_process: bool = False,
    ) -> None:
        self.responder = responder
        self.model_id = model_id
        self.supports_schema = supports_schema
        self.concurrency = concurrency
        self.in_process = in_process
        self.requests: list[list[Message]] = []
        self.schemas: list[dict[str, Any] | None] = []
        self.max_tokens: list[int] = []  # each request's token cap
        self._lock = threading.Lock()

    @classmethod
    def sequence(cls, answers: Iterable[str], **kwargs: Any) -> ScriptedProvider:
        """Answer with ``answers`` in order; LLMError when they run out."""
        queue = list(answers)
        lock = threading.Lock()

        def next_answer(messages: list[Message]) -> str:
            with lock:
                if not queue:
                    raise LLMError("the scripted provider has no answers left")
                return queue.pop(0)

        return cls(next_answer, **kwargs)

    @property
    def calls(self) -> int:
        """How many requests were made."""
        with self._lock:
            return len(self.requests)

    def complete(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any] | None,
        max_tokens: int,
        temperature: float,
        odds: OddsRequest | None = None,
    ) -> Completion:
        """The responder's answer, with estimated token counts for plain text (a responder
        that can give odds returns a Completion with them)."""
        with self._lock:
            self.requests.append([dict(m) for m in messages])
            self.schemas.append(schema)
            self.max_tokens.append(max_tokens)
        answer = self.responder(messages)
        if isinstance(answer, Completion):
            return answer
        prompt = sum(estimate_tokens(m.get("content", "")) for m in messages)
        return Completion(answer, prompt, estimate_tokens(answer), self.model_id)


class UnknownRequestError(LLMError):
    """A recorded provider got a request it has no answer for."""


class RecordedProvider(ScriptedProvider):
    """Answers from recorded responses keyed by a substring of the request.

    A key matches when it occurs in the last user message, else in any message
    (so a phrase of a task's system prompt works as a key); the longest matching
    key wins. A value that is not a string is sent as its JSON text.
    """

    def __init__(
        self, responses: Mapping[str, Any], *, model_id: str = "recorded", concurrency: int = 8
    ) -> None:
        self.responses = {
            key: value if isinstance(value, str) else json.dumps(value)
            for key, value in responses.items()
        }
        super().__init__(self._answer, model_id=model_id, concurrency=concurrency)

    @classmethod
    def from_file(cls, path: Path, **kwargs: Any) -> RecordedProvider:
        """Load a JSON object mapping keys to responses."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise LLMError(f"cannot read recorded responses {path}: {exc}") from exc
        if not isinstance(data, dict):
            raise LLMError(f"{path}: expected a JSON object mapping request keys to responses")
        return cls(data, **kwargs)

    def _answer(self, messages: list[Message]) -> str:
        users = [m.get("content", "") for m in messages if m.get("role") == "user"]
        for haystack in (users[-1:], [m.get("content", "") for m in messages]):
            keys = [k for k in self.responses if any(k in text for text in haystack)]
            if keys:
                return self.responses[max(keys, key=len)]
        last = " ".join((users[-1] if users else "").split())[:100]
        raise UnknownRequestError(
            f"no recorded response for the request whose last user message begins {last!r}; "
            f"{len(self.responses)} key(s) recorded"
        )
