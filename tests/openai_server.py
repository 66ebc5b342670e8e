"""A tiny OpenAI-compatible HTTP server on 127.0.0.1 for tests (the ``serve`` fixture in
conftest starts one per test)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

GOOD = '{"entities": [{"name": "Marie Curie", "type": "person"}]}'

Reply = tuple[int, dict[str, str], dict[str, Any]]


def completion_body(content: str = GOOD) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "test-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19},
    }


def error_body(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error"}}


@dataclass
class FakeServer:
    """Answers each POST with ``reply(request_body)`` and keeps the request bodies."""

    reply: Callable[[dict[str, Any]], Reply]
    requests: list[dict[str, Any]] = field(default_factory=list)
    base_url: str = ""


def send_json(
    handler: BaseHTTPRequestHandler, status: int, body: object, headers: dict[str, str]
) -> None:
    """Answer the request ``handler`` serves with ``body`` as JSON."""
    data = json.dumps(body).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    for key, value in headers.items():
        handler.send_header(key, value)
    handler.end_headers()
    handler.wfile.write(data)


def serving(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., FakeServer]]:
    """Start servers that answer with a ``reply`` function; shut them down afterwards."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    servers: list[ThreadingHTTPServer] = []

    def start(reply: Callable[[dict[str, Any]], Reply]) -> FakeServer:
        fake = FakeServer(reply)

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append({"path": self.path, **body})
                status, headers, payload = fake.reply(body)
                send_json(self, status, payload, headers)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        servers.append(server)
        threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True).start()
        fake.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        return fake

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()
