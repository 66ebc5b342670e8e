"""The OpenAI-compatible provider against a tiny HTTP server on 127.0.0.1."""

from __future__ import annotations

import math
import socket
import time
from collections.abc import Callable
from typing import Any

import pytest
from openai_server import GOOD, FakeServer, Reply, completion_body, error_body
from pydantic import BaseModel

from graphmind.core.errors import LLMError, LLMOutputError
from graphmind.llm import LLM, LLMRequestError
from graphmind.llm.openai_provider import OpenAIProvider, retry_after


class Entity(BaseModel):
    name: str
    type: str


class Entities(BaseModel):
    entities: list[Entity]


MESSAGES = [
    {"role": "system", "content": "Extract the named entities."},
    {"role": "user", "content": "Marie Curie was born in Warsaw."},
]


def provider(base_url: str, sleeps: list[float] | None = None, **kwargs: Any) -> OpenAIProvider:
    return OpenAIProvider(
        model="test-model",
        base_url=base_url,
        timeout=5,
        backoff_base=0.001,
        sleep=(sleeps.append if sleeps is not None else lambda s: None),
        **kwargs,
    )


def test_rate_limit_and_server_error_are_retried(serve: Callable[..., FakeServer]) -> None:
    script: list[Reply] = [
        (429, {"Retry-After": "0"}, error_body("slow down")),
        (500, {}, error_body("boom")),
        (200, {}, completion_body("```json\n" + GOOD + "\n```")),
    ]
    server = serve(lambda body: script.pop(0))
    sleeps: list[float] = []
    chat = provider(server.base_url, sleeps)
    llm = LLM(chat, cache=None)
    result = llm.structured("extract", MESSAGES, Entities)
    assert result.entities[0].name == "Marie Curie"
    assert len(server.requests) == 3
    assert all(r["path"] == "/v1/chat/completions" for r in server.requests)
    assert sleeps[0] == 0.0 and 0 < sleeps[1] < 0.01  # Retry-After, then jittered backoff
    first = server.requests[0]
    assert first["model"] == "test-model" and first["max_tokens"] == 1024
    assert first["response_format"]["type"] == "json_schema"
    assert first["response_format"]["json_schema"]["schema"] == Entities.model_json_schema()
    assert "matches this JSON schema" in first["messages"][-1]["content"]
    usage = llm.ledger.get("extract")
    assert (usage.calls, usage.retries, usage.prompt_tokens, usage.completion_tokens) == (
        1,
        2,
        12,
        7,
    )
    assert chat.model_id == f"openai:test-model@{server.base_url}"


def test_json_schema_rejected_falls_back_to_json_object_for_the_session(
    serve: Callable[..., FakeServer],
) -> None:
    def reply(body: dict[str, Any]) -> Reply:
        if body.get("response_format", {}).get("type") == "json_schema":
            return 400, {}, error_body("response_format json_schema is not supported")
        return 200, {}, completion_body()

    server = serve(reply)
    chat = provider(server.base_url)
    llm = LLM(chat, cache=None)
    assert llm.structured("extract", MESSAGES, Entities).entities[0].name == "Marie Curie"
    assert [r.get("response_format", {}).get("type") for r in server.requests] == [
        "json_schema",
        "json_object",
    ]
    fallback = server.requests[1]["messages"]
    assert "matches this JSON schema" in fallback[-1]["content"]
    assert '"entities"' in fallback[-1]["content"]
    assert chat.mode == "json_object" and not chat.supports_schema
    llm.structured("extract", [*MESSAGES[:1], {"role": "user", "content": "Other."}], Entities)
    assert server.requests[2]["response_format"]["type"] == "json_object"


def test_no_structured_output_at_all_falls_back_to_plain(
    serve: Callable[..., FakeServer],
) -> None:
    def reply(body: dict[str, Any]) -> Reply:
        if "response_format" in body:
            return 400, {}, error_body("unknown field response_format")
        return 200, {}, completion_body("Here it is: " + GOOD)

    server = serve(reply)
    chat = provider(server.base_url)
    assert LLM(chat, cache=None).structured("extract", MESSAGES, Entities).entities
    assert len(server.requests) == 3 and chat.mode == "plain"


def test_a_request_refused_in_every_mode_keeps_the_mode_and_is_an_output_error(
    serve: Callable[..., FakeServer],
) -> None:
    server = serve(lambda body: (400, {}, error_body("prompt is too long: 9000 tokens")))
    chat = provider(server.base_url)
    with pytest.raises(LLMRequestError, match="prompt is too long"):
        chat.complete(MESSAGES, schema=None, max_tokens=16, temperature=0)
    assert chat.mode == "json_schema"
    with pytest.raises(LLMOutputError, match="prompt is too long"):
        LLM(chat, cache=None).structured("extract", MESSAGES, Entities)


def test_max_completion_tokens_is_used_when_the_server_asks_for_it(
    serve: Callable[..., FakeServer],
) -> None:
    def reply(body: dict[str, Any]) -> Reply:
        if "max_tokens" in body:
            return 400, {}, error_body("Use 'max_completion_tokens' instead of 'max_tokens'.")
        return 200, {}, completion_body()

    server = serve(reply)
    chat = provider(server.base_url)
    chat.complete(MESSAGES, schema=Entities.model_json_schema(), max_tokens=32, temperature=0)
    assert server.requests[-1]["max_completion_tokens"] == 32
    assert server.requests[-1]["response_format"]["type"] == "json_schema"


def test_authentication_errors_fail_at_once_with_a_hint(
    serve: Callable[..., FakeServer],
) -> None:
    server = serve(lambda body: (401, {}, error_body("invalid api key")))
    llm = LLM(provider(server.base_url), cache=None)
    with pytest.raises(LLMError, match=r"HTTP 401.*GRAPHMIND_LLM_API_KEY") as info:
        llm.structured("extract", MESSAGES, Entities)
    assert not isinstance(info.value, LLMOutputError)
    assert len(server.requests) == 1


def test_persistent_server_errors_give_up_after_max_attempts(
    serve: Callable[..., FakeServer],
) -> None:
    server = serve(lambda body: (503, {}, error_body("overloaded")))
    sleeps: list[float] = []
    chat = provider(server.base_url, sleeps, max_attempts=3)
    with pytest.raises(LLMError, match=r"failed 3 times.*overloaded"):
        chat.complete(MESSAGES, schema=None, max_tokens=16, temperature=0)
    assert len(server.requests) == 3 and len(sleeps) == 2


def test_a_dead_endpoint_is_an_llm_error_after_retries() -> None:
    with socket.socket() as sock:  # a port that nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    sleeps: list[float] = []
    chat = provider(f"http://127.0.0.1:{port}/v1", sleeps, max_attempts=3)
    with pytest.raises(LLMError, match="failed 3 times") as failed:
        LLM(chat, cache=None).structured("extract", MESSAGES, Entities)
    assert len(sleeps) == 2
    assert "is the server running, and is GRAPHMIND_LLM_BASE_URL right?" in str(failed.value)


def test_a_slow_endpoint_names_the_timeout(serve: Callable[..., FakeServer]) -> None:
    def slow(body: dict[str, Any]) -> Reply:
        time.sleep(1.0)
        return 200, {}, completion_body()

    chat = provider(serve(slow).base_url, [], max_attempts=2)
    chat.client = chat.client.with_options(timeout=0.2)
    with pytest.raises(LLMError, match="failed 2 times") as failed:
        LLM(chat, cache=None).structured("extract", MESSAGES, Entities)
    assert "raise GRAPHMIND_LLM_TIMEOUT" in str(failed.value)


def test_retry_after_forms() -> None:
    assert retry_after({"retry-after": "2"}) == 2.0
    assert retry_after({"retry-after-ms": "250"}) == 0.25
    assert retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    assert retry_after({"retry-after": "soon"}) is None
    assert retry_after({}) is None


def test_an_answer_that_is_not_a_chat_completion_is_an_llm_error(
    serve: Callable[..., FakeServer],
) -> None:
    server = serve(lambda body: (200, {}, {"status": "ok"}))
    llm = LLM(provider(server.base_url), cache=None)
    with pytest.raises(LLMError, match="did not answer with a chat completion") as info:
        llm.structured("extract", MESSAGES, Entities)
    assert not isinstance(info.value, LLMOutputError) and len(server.requests) == 1


def token(text: str, top: dict[str, float]) -> dict[str, Any]:
    """One ``logprobs.content`` entry: the token written and the top alternatives."""
    return {
        "token": text,
        "logprob": top.get(text, -9.0),
        "top_logprobs": [{"token": t, "logprob": lp} for t, lp in top.items()],
    }


def test_odds_are_read_from_the_answer_s_logprobs(serve: Callable[..., FakeServer]) -> None:
    pieces = [
        token('{"', {'{"': 0.0}),
        token("better", {"better": 0.0}),
        token('":', {'":': 0.0}),
        token(' "', {' "': 0.0}),
        token("2", {"2": -0.4, "1": -1.2, " 1": -5.0, "A": -6.0}),
        token('"}', {'"}': 0.0}),
    ]

    def reply(body: dict[str, Any]) -> Reply:
        answer = completion_body('{"better": "2"}')
        answer["choices"][0]["logprobs"] = {"content": pieces}
        return 200, {}, answer

    server = serve(reply)
    chat = provider(server.base_url)
    done = chat.complete(
        MESSAGES, schema=None, max_tokens=8, temperature=0, odds={"better": ["1", "2"]}
    )
    assert server.requests[-1]["logprobs"] is True
    assert server.requests[-1]["top_logprobs"] == 20
    assert done.odds is not None
    odds = done.odds["better"]
    assert odds["2"] - odds["1"] == pytest.approx(0.8)
    assert math.exp(odds["1"]) + math.exp(odds["2"]) == pytest.approx(1.0)
    plain = chat.complete(MESSAGES, schema=None, max_tokens=8, temperature=0)
    assert "logprobs" not in server.requests[-1] and plain.odds is None


def test_a_server_without_logprobs_answers_without_odds(serve: Callable[..., FakeServer]) -> None:
    def reply(body: dict[str, Any]) -> Reply:
        if "logprobs" in body:
            return 400, {}, error_body("logprobs is not supported by this model")
        return 200, {}, completion_body('{"better": "1"}')

    server = serve(reply)
    chat = provider(server.base_url)
    for _ in range(2):
        done = chat.complete(
            MESSAGES, schema=None, max_tokens=8, temperature=0, odds={"better": ["1", "2"]}
        )
        assert done.text == '{"better": "1"}' and done.odds is None
    assert ["logprobs" in r for r in server.requests] == [True, False, False]
    assert chat.mode == "json_schema"  # the refusal was the logprobs', not the mode's
