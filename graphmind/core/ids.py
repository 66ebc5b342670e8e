"""Content-derived ids."""

from __future__ import annotations

import hashlib


def digest(*parts: str) -> str:
    """A 32-hex-digit id from the parts (sha256, separated so parts cannot run together)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8"))
        h.update(b"\x1f")
    return h.hexdigest()[:32]
