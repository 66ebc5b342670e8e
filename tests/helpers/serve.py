"""Shared pieces of the server tests: a server over the fixture store with a scripted
LLM, run by uvicorn on a free loopback port, and a reader of server-sent events."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from buildkit import HASH_SPEC
from conftest import store_settings
from graphmind.ask.loop import AskOptions
from graphmind.ask.retrieve import RetrieveOptions
from graphmind.config import load_settings
from graphmind.core.decision import Decision
from graphmind.embed.hashing import HashingEmbedder
from graphmind.llm import LLM
from graphmind.llm.scripted import Responder, ScriptedProvider
from graphmind.serve.app import create_app, running
from graphmind.serve.service import Service
from helpers.ask import asked_on_disk, responder


@dataclass
class Served:
    """A running server: its URL, an HTTP client, its service, the decision asked on
    its store before it started, and the scripted model's provider."""

    url: str
    client: httpx.Client
    service: Service
    decision: Decision
    provider: ScriptedProvider


def service_for(
    tmp_path: Path, store_env: dict[str, str], responder_: Responder = responder, slots: int = 8
) -> tuple[Service, ScriptedProvider]:
    """A service on the backend's store, with the hashed embedder, the scripted model
    (``slots`` asks at once) and the ask knobs of ``test_ask.loop``: two rounds for
    ``QUESTION``."""
    settings = load_settings(
        **{
            **store_settings(tmp_path, store_env),
            "embedder": "hash:384",
            "llm_cache": "off",
            "model_dir": str(tmp_path / "no-models"),
        },
        ask=AskOptions(k=3, extra=0, follow_up=3, retrieve=RetrieveOptions(per_list=3)),
    )
    provider = ScriptedProvider(responder_, concurrency=slots)
    llm = LLM(provider, cache=None)
    return Service(settings, llm=llm, embedder=HashingEmbedder(HASH_SPEC)), provider


@contextmanager
def serving(
    tmp_path: Path,
    store_env: dict[str, str],
    *,
    token: str | None = None,
    max_upload: int | None = None,
    responder_: Responder = responder,
    slots: int = 8,
) -> Iterator[Served]:
    """The fixture corpus built with one question asked, then served on a free port."""
    decision, _ = asked_on_disk(tmp_path, store_env)
    service, provider = service_for(tmp_path, store_env, responder_, slots)
    app = create_app(service, token=token, max_upload=max_upload)
    with running(app) as url, httpx.Client(base_url=url, timeout=120) as client:
        yield Served(url, client, service, decision, provider)


def read_events(response: httpx.Response) -> Iterator[tuple[str, dict[str, Any]]]:
    """The server-sent events of a streamed response, as they arrive."""
    name, data = "message", []
    for line in response.iter_lines():
        if not line:
            if data:
                yield name, json.loads("\n".join(data))
            name, data = "message", []
        elif line.startswith("event: "):
            name = line.removeprefix("event: ")
        elif line.startswith("data: "):
            data.append(line.removeprefix("data: "))


def no_traceback(body: str) -> None:
    """An error body is GraphMind's message, never Python's."""
    assert "Traceback" not in body and 'File "' not in body, body
