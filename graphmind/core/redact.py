"""Keeping secrets out of what GraphMind prints, logs and stores."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def has_credentials(url: str) -> bool:
    """Whether ``url`` carries a user name or password (``scheme://user:pass@host``)."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return "@" in url
    return bool(parts.username or parts.password or "@" in parts.netloc)


def public_url(url: str) -> str:
    """``url`` fit to print or store: no user name or password, query string or fragment
    (``https://k:s@host/v1?key=x`` -> ``https://host/v1``). A URL that cannot be parsed
    is replaced by a placeholder rather than echoed."""
    try:
        parts = urlsplit(url.strip())
        host = parts.netloc.rpartition("@")[2]
        shown = urlunsplit((parts.scheme, host, parts.path, "", ""))
    except ValueError:
        return "<unparsable URL>"
    if "@" in shown:  # no scheme the parser knows (``user:pass@host``): drop what precedes
        scheme, sep, rest = shown.rpartition("://")
        shown = scheme + sep + rest.rpartition("@")[2]
    return shown


def scrub(text: str, url: str) -> str:
    """``text`` (an error message about ``url``) with ``url`` and its password masked."""
    shown = text.replace(url, public_url(url))
    try:
        password = urlsplit(url.strip()).password
    except ValueError:
        password = None
    return shown.replace(password, "***") if password else shown
