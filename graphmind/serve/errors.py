"""Error bodies: every failure is one JSON object, never a stack trace.

The body is the one ``graphmind … --json`` prints: ``{"error": message, "type": class,
"exit_code": n}``, with the exit code of the error's class (``graphmind.core.errors``)
and an HTTP status that says the same. Under ``/v1/`` (the OpenAI-compatible endpoint)
the same fields sit in OpenAI's shape, ``{"error": {"message", "type", "code"}}``, so
OpenAI clients show the message.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from graphmind.core.errors import (
    BadInputError,
    ConfigError,
    EmptyStoreError,
    GraphMindError,
    InterruptedBuildError,
    ModelError,
    NotFoundError,
    StoreUnavailableError,
)

log = logging.getLogger("graphmind.serve")


class UnauthorizedError(ConfigError):
    """A writing request without the server's bearer token."""

    exit_code = 2


class CrossSiteError(ConfigError):
    """A writing request sent by a page of another site (its ``Origin`` is not the
    server's): a browser's form could otherwise write to a local server."""

    exit_code = 2


class TooLargeError(BadInputError):
    """An upload over the server's size limit."""


# most specific first
STATUS: tuple[tuple[type[GraphMindError], int], ...] = (
    (UnauthorizedError, 401),
    (CrossSiteError, 403),
    (TooLargeError, 413),
    (NotFoundError, 404),
    (EmptyStoreError, 409),
    (InterruptedBuildError, 503),
    (BadInputError, 400),
    (ConfigError, 400),
    (StoreUnavailableError, 503),
    (ModelError, 502),
)


def status_of(exc: GraphMindError) -> int:
    """The HTTP status of a GraphMind error (500 when nothing more specific fits)."""
    return next((code for cls, code in STATUS if isinstance(exc, cls)), 500)


def error_body(message: str, kind: str, exit_code: int) -> dict[str, Any]:
    """The JSON body of an error (the CLI's ``--json`` error object)."""
    return {"error": message, "type": kind, "exit_code": exit_code}


def body_of(exc: GraphMindError) -> dict[str, Any]:
    """``exc`` as an error body."""
    return error_body(str(exc), type(exc).__name__, exc.exit_code)


def _respond(request: Request, status: int, body: dict[str, Any]) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    if request.url.path.startswith("/v1/"):
        body = {
            "error": {"message": body["error"], "type": body["type"], "code": body["exit_code"]}
        }
    return JSONResponse(body, status_code=status, headers=headers)


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "body"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "malformed request: " + "; ".join(parts)


def install(app: FastAPI) -> None:
    """Turn every error the app can meet into a JSON body."""

    async def graphmind_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, GraphMindError)
        return _respond(request, status_of(exc), body_of(exc))

    async def validation_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        body = error_body(_validation_message(exc), "BadInputError", BadInputError.exit_code)
        return _respond(request, 400, body)

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        code = NotFoundError.exit_code if exc.status_code == 404 else BadInputError.exit_code
        kind = "NotFoundError" if exc.status_code == 404 else "BadInputError"
        return _respond(request, exc.status_code, error_body(str(exc.detail), kind, code))

    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        message = f"internal error ({type(exc).__name__}); the server log has the details"
        return _respond(request, 500, error_body(message, "GraphMindError", 1))

    app.add_exception_handler(GraphMindError, graphmind_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(Exception, unexpected)
