"""Safe by default: loopback unless told, and a bearer token for every writing request.

``GRAPHMIND_SERVE_TOKEN`` set: building, deleting and feedback need
``Authorization: Bearer <token>``. A non-loopback address is refused without one. A
writing request a browser sends from another site's page (its ``Origin`` is not this
server) is refused, token or not: a form there could otherwise upload to a local server.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
from urllib.parse import urlsplit

from fastapi import Request

from graphmind.core.errors import ConfigError
from graphmind.serve.errors import CrossSiteError, UnauthorizedError

TOKEN_ENV = "GRAPHMIND_SERVE_TOKEN"
LOOPBACK_NAMES = ("localhost",)


def token_from_env() -> str | None:
    """The token the environment sets (blank counts as none)."""
    value = os.environ.get(TOKEN_ENV, "").strip()
    return value or None


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (127.0.0.0/8, ::1, localhost)."""
    name = host.strip().strip("[]").lower()
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """ConfigError for a non-loopback address without a token."""
    if not is_loopback(host) and not token:
        raise ConfigError(
            f"refusing to listen on {host} without a token: set {TOKEN_ENV} "
            "(writing requests then need it), or listen on 127.0.0.1"
        )


def require_token(request: Request) -> None:
    """A dependency of writing routes: no other site's page, and the bearer token when
    the server has one."""
    origin = request.headers.get("origin")
    if origin is not None and urlsplit(origin).netloc != request.headers.get("host", ""):
        raise CrossSiteError(
            f"a writing request from the page of another site ({origin[:100]}) is refused"
        )
    token: str | None = request.app.state.token
    if not token:
        return
    given = request.headers.get("authorization", "")
    scheme, _, value = given.partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(
        value.strip().encode(), token.encode()
    ):
        raise UnauthorizedError(
            "this request writes to the store: send the server's token as "
            f"'Authorization: Bearer <{TOKEN_ENV}>'"
        )
