"""The FastAPI application and ``graphmind serve``'s entry point (uvicorn).

``create_app`` wires the routes (``routes``, ``chat``, ``page``), the error bodies
(``errors``) and the token (``auth``) around one ``Service``; ``serve`` checks the
address and runs it. The OpenAPI schema is at ``/openapi.json``.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, contextmanager

from fastapi import FastAPI

from graphmind import __version__
from graphmind.config import Settings, load_settings
from graphmind.core.errors import ConfigError
from graphmind.serve import DEFAULT_HOST, DEFAULT_PORT, chat, errors, page, routes
from graphmind.serve.auth import check_bind, token_from_env
from graphmind.serve.service import Service

MAX_UPLOAD_ENV = "GRAPHMIND_SERVE_MAX_UPLOAD_MB"
DEFAULT_MAX_UPLOAD_MB = 50
STARTUP_SECONDS = 30.0
WORKERS = 64  # threads running asks and builds (a waiting ask holds one)


def max_upload_from_env() -> int:
    """The upload limit in bytes (``GRAPHMIND_SERVE_MAX_UPLOAD_MB``, default 50)."""
    text = os.environ.get(MAX_UPLOAD_ENV, "").strip()
    try:
        megabytes = float(text) if text else DEFAULT_MAX_UPLOAD_MB
    except ValueError as exc:
        raise ConfigError(f"{MAX_UPLOAD_ENV} must be a number of megabytes, got {text!r}") from exc
    if megabytes <= 0:
        raise ConfigError(f"{MAX_UPLOAD_ENV} must be more than 0, got {text!r}")
    return int(megabytes * 1024 * 1024)


def create_app(
    service: Service, *, token: str | None = None, max_upload: int | None = None
) -> FastAPI:
    """The app over ``service``; ``token``: the bearer token writing requests need."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            app.state.pool.shutdown(wait=False, cancel_futures=True)
            service.close()

    app = FastAPI(
        title="GraphMind",
        version=__version__,
        summary="Ask, audit and teach a GraphMind store over HTTP.",
        lifespan=lifespan,
        docs_url=None,  # the interactive docs load their script from a CDN: offline, the
        redoc_url=None,  # schema at /openapi.json is what is served
    )
    app.state.service = service
    app.state.token = token
    app.state.max_upload = max_upload if max_upload is not None else max_upload_from_env()
    app.state.pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="graphmind-serve")
    errors.install(app)
    app.include_router(routes.router)
    app.include_router(chat.router)
    app.include_router(page.router)
    return app


def serve(
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    settings: Callable[[], Settings] = load_settings,
) -> None:
    """Run the server until interrupted; a non-loopback ``host`` needs the token."""
    try:
        import uvicorn
    except ImportError as exc:
        raise ConfigError(
            f"graphmind serve needs its extra: pip install 'graphmind[serve]' ({exc})"
        ) from exc
    token = token_from_env()
    check_bind(host, token)
    app = create_app(Service(settings()), token=token)
    uvicorn.run(app, host=host, port=port, log_level="info")


@contextmanager
def running(app: FastAPI, host: str = DEFAULT_HOST, port: int = 0) -> Iterator[str]:
    """Serve ``app`` with uvicorn in a thread of this process (tests, benchmarks,
    notebooks) until the block ends; yields its base URL. ``port`` 0: a free one."""
    import uvicorn

    check_bind(host, app.state.token)
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_keep_alive=30))
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="graphmind-uvicorn", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + STARTUP_SECONDS
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            sock.close()
            raise ConfigError(f"the server did not start on {host}:{port}")
        time.sleep(0.02)
    try:
        shown = f"[{host}]" if ":" in host else host
        yield f"http://{shown}:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(STARTUP_SECONDS)
        sock.close()
