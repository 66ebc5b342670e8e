"""What a vector or full-text search returns, on either store."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class VectorHit:
    """A node found by vector search; ``similarity`` is in [0, 1], 1 = same direction."""

    id: str
    similarity: float
    properties: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TextHit:
    """A node found by full-text search; ``score`` is the backend's relevance score."""

    id: str
    score: float
    properties: dict[str, Any] = field(default_factory=dict)
