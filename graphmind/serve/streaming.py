"""Server-sent events from work that runs in a thread.

A blocking job (an ask, a build) runs on the server's worker pool and hands events to
``emit`` as they happen; they reach the client in that order, each as
``event: NAME`` / ``data: JSON``. A GraphMind error ends the stream with an ``error``
event holding the same body as a JSON error response.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor
from typing import Any

from graphmind.core.errors import GraphMindError
from graphmind.serve.errors import body_of, error_body

log = logging.getLogger("graphmind.serve")

Emit = Callable[[str, dict[str, Any]], None]
Event = tuple[str, dict[str, Any]]
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def sse(event: str, data: Any) -> str:
    """One server-sent event."""
    return f"event: {event}\ndata: {json.dumps(data, default=str)}\n\n"


def wants_stream(accept: str | None) -> bool:
    """Whether the client asked for server-sent events."""
    return "text/event-stream" in (accept or "").lower()


async def events_of(pool: Executor, job: Callable[[Emit], list[Event]]) -> AsyncIterator[Event]:
    """Run ``job(emit)`` on ``pool``; yield what it emits as it does, then the events it
    returns, or an ``error`` event when it fails."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Event | None] = asyncio.Queue()

    def put(item: Event | None) -> None:
        with contextlib.suppress(RuntimeError):  # the server stopped while the job ran
            loop.call_soon_threadsafe(queue.put_nowait, item)

    def run() -> None:
        try:
            for event in job(lambda name, data: put((name, data))):
                put(event)
        except GraphMindError as exc:
            put(("error", body_of(exc)))
        except Exception as exc:
            log.exception("a streamed request failed")
            put(
                ("error", error_body(f"internal error ({type(exc).__name__})", "GraphMindError", 1))
            )
        finally:
            put(None)

    running = loop.run_in_executor(pool, run)
    while (item := await queue.get()) is not None:
        yield item
    await running


async def sse_of(pool: Executor, job: Callable[[Emit], list[Event]]) -> AsyncIterator[str]:
    """``events_of`` as server-sent events."""
    async for name, data in events_of(pool, job):
        yield sse(name, data)
