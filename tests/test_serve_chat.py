"""``graphmind serve``'s OpenAI-compatible endpoint, driven by the official ``openai``
client against a real uvicorn on a free loopback port, on both stores."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import openai
import pytest

from graphmind.core.decision import full_answer
from graphmind.core.errors import LLMError
from graphmind.llm.base import Message
from helpers.ask import QUESTION
from helpers.serve import serving


def test_the_openai_client_chats_with_graphmind(tmp_path: Path, store_env: dict[str, str]) -> None:
    with serving(tmp_path, store_env) as s:
        client = openai.OpenAI(base_url=f"{s.url}/v1", api_key="unused", max_retries=0)
        assert [m.id for m in client.models.list().data] == ["graphmind"]

        messages: list[openai.types.chat.ChatCompletionMessageParam] = [
            {"role": "system", "content": "Answer briefly."},
            {"role": "user", "content": "Who directed Silent Harbor?"},
            {"role": "assistant", "content": "Aldo Vance."},
            {"role": "user", "content": QUESTION},
        ]
        reply = client.chat.completions.create(model="graphmind", messages=messages)
        text = reply.choices[0].message.content or ""
        assert reply.choices[0].finish_reason == "stop" and reply.model == "graphmind"
        lines = text.splitlines()
        # the full answer with its markers, then the passages they number
        assert lines[0].startswith("It was shot in Port Ellis. [2]") and lines[2] == "Sources:"
        cited = [line for line in lines if line.startswith("[")]
        assert [c.split(":")[0] for c in cited[:2]] == ["[1] Aldo Vance", "[2] Silent Harbor"]
        assert "recorded entirely on location in Port Ellis" in cited[1]
        extra = (reply.model_extra or {})["graphmind"]
        decision = s.service.trace(extra["decision_id"])  # recorded like any ask
        assert decision.answer == "Port Ellis" and lines[0] == full_answer(decision)
        assert decision.question == QUESTION and extra["grade"] == "INFERRABLE"
        assert reply.usage is not None and reply.usage.total_tokens == max(
            decision.tokens, reply.usage.completion_tokens
        )

        chunks = list(
            client.chat.completions.create(model="graphmind", messages=messages, stream=True)
        )
        assert chunks[0].choices[0].delta.role == "assistant"
        streamed = "".join(c.choices[0].delta.content or "" for c in chunks)
        assert streamed == text
        assert chunks[-1].choices[0].finish_reason == "stop"
        assert all(c.object == "chat.completion.chunk" for c in chunks)

        with httpx.stream(
            "POST",
            f"{s.url}/v1/chat/completions",
            json={"model": "graphmind", "messages": messages, "stream": True},
            timeout=60,
        ) as raw:
            lines = [line for line in raw.iter_lines() if line]
        assert lines[-1] == "data: [DONE]" and all(line.startswith("data: ") for line in lines)

        with pytest.raises(openai.BadRequestError) as refused:
            client.chat.completions.create(
                model="graphmind", messages=[{"role": "system", "content": "Hi"}]
            )
        assert refused.value.status_code == 400
        assert refused.value.body == {  # type: ignore[comparison-overlap]
            "message": "the conversation has no user message with text to answer",
            "type": "BadInputError",
            "code": 2,
        }
        with pytest.raises(openai.BadRequestError, match="the most is 4000"):
            client.chat.completions.create(
                model="graphmind", messages=[{"role": "user", "content": "why " * 1001}]
            )
        malformed = httpx.post(f"{s.url}/v1/chat/completions", json={"messages": "hi"})
        assert malformed.status_code == 400
        assert malformed.json()["error"]["type"] == "BadInputError"

        # refused before the stream starts, so a streaming client gets the error too
        with pytest.raises(openai.BadRequestError, match="the most is 4000"):
            client.chat.completions.create(
                model="graphmind",
                messages=[{"role": "user", "content": "why " * 1001}],
                stream=True,
            )


def test_a_model_failure_is_an_openai_error_streamed_or_not(tmp_path: Path) -> None:
    def down(messages: list[Message]) -> str:
        raise LLMError("the model endpoint is down")

    with serving(tmp_path, {}, responder_=down) as s:
        client = openai.OpenAI(base_url=f"{s.url}/v1", api_key="unused", max_retries=0)
        with pytest.raises(openai.APIStatusError) as failed:
            client.chat.completions.create(
                model="graphmind", messages=[{"role": "user", "content": QUESTION}]
            )
        assert failed.value.status_code == 502
        assert failed.value.body == {  # type: ignore[comparison-overlap]
            "message": "the model endpoint is down",
            "type": "LLMError",
            "code": 6,
        }
        with httpx.stream(
            "POST",
            f"{s.url}/v1/chat/completions",
            json={"messages": [{"role": "user", "content": QUESTION}], "stream": True},
            timeout=60,
        ) as raw:
            lines = [line for line in raw.iter_lines() if line]
        assert json.loads(lines[-2].removeprefix("data: ")) == {
            "error": {"message": "the model endpoint is down", "type": "LLMError", "code": 6}
        }
        assert lines[-1] == "data: [DONE]"
        assert s.service.store().counts()["Decision"] == 1  # only the one asked before


def test_the_readme_chat_example_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## HTTP server and web page: `graphmind serve`", 1)[1]
    match = re.search(r"```python\n(.*?)```", section.split("\n## ", 1)[0], re.DOTALL)
    assert match and len(match.group(1).strip().splitlines()) == 2
    with serving(tmp_path, {}) as s:
        code = match.group(1).replace("http://127.0.0.1:8765", s.url)
        assert code != match.group(1)
        exec(compile(code, "README.md", "exec"), {})
        asked = s.service.decisions(1)[0]
    printed = capsys.readouterr().out
    assert asked["question"] == "Where was the author of X born?"
    assert printed.strip() == (asked["answer"] or "Not found in the corpus.")
