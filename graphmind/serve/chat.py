"""An OpenAI-compatible chat endpoint: ``POST /v1/chat/completions``, ``GET /v1/models``.

The last user message is the question; the reply is the answer followed by its cited
passages, and the decision is recorded as for ``POST /ask``. With ``stream``, the reply
comes as ``chat.completion.chunk`` events (the role first, then the text), ending with
``data: [DONE]``. Any chat client can talk to GraphMind this way.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict

from graphmind.core.decision import Decision, full_answer, numbered_sources
from graphmind.core.errors import BadInputError
from graphmind.mcp_server import capped
from graphmind.serve.routes import Svc
from graphmind.serve.service import Service
from graphmind.serve.streaming import SSE_HEADERS, Emit, Event, events_of

router = APIRouter(prefix="/v1", tags=["openai"])
MODEL = "graphmind"
SNIPPET = 300  # characters of a cited passage in the reply


class ChatMessage(BaseModel):
    """One message of the conversation (text content, or OpenAI's list of text parts)."""

    model_config = ConfigDict(extra="allow")
    role: str
    content: str | list[dict[str, Any]] | None = None


class ChatRequest(BaseModel):
    """The fields of OpenAI's request GraphMind reads; others are accepted and ignored."""

    model_config = ConfigDict(extra="allow")
    model: str = MODEL
    messages: list[ChatMessage]
    stream: bool = False


def question_of(body: ChatRequest) -> str:
    """The last user message's text."""
    for message in reversed(body.messages):
        if message.role == "user":
            content = message.content
            if isinstance(content, list):
                content = " ".join(
                    str(p.get("text", "")) for p in content if p.get("type") == "text"
                )
            if content and content.strip():
                return capped(content, "the question").strip()
            break
    raise BadInputError("the conversation has no user message with text to answer")


def reply_text(d: Decision) -> str:
    """The full answer with its markers (the short answer when there is none), then the
    passages they number, as sources."""
    lines = [full_answer(d) or "Not found in the corpus."]
    passages = numbered_sources(d)
    if passages:
        lines += ["", "Sources:"]
        for n, c in enumerate(passages, start=1):
            text = " ".join(c.text.split())
            text = text if len(text) <= SNIPPET else text[: SNIPPET - 1] + "…"
            lines.append(f"[{n}] {c.title}: {text} (chunk {c.chunk_id})")
    return "\n".join(lines)


def _extra(d: Decision) -> dict[str, Any]:
    return {
        "decision_id": d.id,
        "grade": d.sufficiency.value,
        "confidence": d.confidence,
        "citations": [
            {"chunk_id": c.chunk_id, "title": c.title, "text": c.text} for c in d.citations
        ],
    }


def completion(d: Decision, model: str) -> dict[str, Any]:
    """The decision as an OpenAI ``chat.completion`` (GraphMind's fields under
    ``graphmind``)."""
    text = reply_text(d)
    answer = max(1, len(text) // 4)  # the reply, about four characters a token
    prompt = max(0, d.tokens - answer)  # the rest of what the loop's LLM calls spent
    return {
        "id": f"chatcmpl-{d.id}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": answer,
            "total_tokens": prompt + answer,
        },
        "graphmind": _extra(d),
    }


def _chunk(ident: str, model: str, delta: dict[str, Any], finish: str | None) -> str:
    data = {
        "id": ident,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(data)}\n\n"


async def _stream(svc: Service, pool: Any, question: str, model: str) -> AsyncIterator[str]:
    ident = f"chatcmpl-{int(time.time() * 1000)}"
    yield _chunk(ident, model, {"role": "assistant", "content": ""}, None)

    def job(emit: Emit) -> list[Event]:
        decision, _ = svc.ask(question)
        return [("answer", {"text": reply_text(decision), "graphmind": _extra(decision)})]

    async for name, data in events_of(pool, job):
        if name == "error":
            yield f"data: {json.dumps({'error': _openai_error(data)})}\n\n"
            break
        if name == "answer":
            yield _chunk(ident, model, {"content": data["text"]}, None)
            yield _chunk(ident, model, {}, "stop")
    yield "data: [DONE]\n\n"


def _openai_error(body: dict[str, Any]) -> dict[str, Any]:
    return {"message": body["error"], "type": body["type"], "code": body["exit_code"]}


@router.post("/chat/completions")
async def chat(request: Request, body: ChatRequest, svc: Svc) -> Any:
    """Answer the last user message with the evidence loop, OpenAI's way."""
    question = question_of(body)
    model = body.model or MODEL
    pool = request.app.state.pool
    if body.stream:
        stream = _stream(svc, pool, question, model)
        return StreamingResponse(stream, media_type="text/event-stream", headers=SSE_HEADERS)
    loop = asyncio.get_running_loop()
    decision, _ = await loop.run_in_executor(pool, lambda: svc.ask(question))
    return completion(decision, model)


@router.get("/models")
def models(svc: Svc) -> dict[str, Any]:
    """The one model this server offers: GraphMind answering from its store."""
    return {
        "object": "list",
        "data": [
            {
                "id": MODEL,
                "object": "model",
                "created": 0,
                "owned_by": "graphmind",
                "answers_with": svc.model_name(),
            }
        ],
    }
