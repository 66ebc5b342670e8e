"""Query types: questions grouped by embedding with online k-means.

A question joins the type with the nearest centroid when the cosine distance is within
a threshold; otherwise it opens a new type. The centroid moves toward each question
that joins (a running mean), inside the same query that writes the decision, so the
update is atomic with it. The number of types stays small, so centroids are read
whole and compared here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from graphmind.build.loaders import digest
from graphmind.store.base import GraphStore

DEFAULT_THRESHOLD = 0.45  # cosine distance; all-MiniLM puts same-template questions within it
LABEL_CHARS = 80


@dataclass
class QueryTypeMatch:
    """The type a question was assigned to."""

    id: str
    label: str  # the first question of the type, shortened
    new: bool  # the question opens this type
    distance: float  # cosine distance to the centroid (0 for a new type)
    size: int  # questions in the type before this one


def assign_query_type(
    store: GraphStore,
    question: str,
    vector: Sequence[float],
    threshold: float = DEFAULT_THRESHOLD,
) -> QueryTypeMatch:
    """The nearest type within ``threshold`` (cosine distance), or a new one."""
    best: QueryTypeMatch | None = None
    for row in store.run("memory/query_types"):
        centroid = row["centroid"] or []
        if len(centroid) != len(vector):
            continue  # written by another embedder; the store refuses that, but be safe
        distance = 1.0 - _cosine(vector, centroid)
        if distance <= threshold and (best is None or distance < best.distance):
            best = QueryTypeMatch(
                str(row["id"]), str(row["label"] or ""), False, distance, int(row["count"] or 0)
            )
    if best is not None:
        return best
    label = " ".join(question.split())[:LABEL_CHARS]
    return QueryTypeMatch(digest("query-type", question), label, True, 0.0, 0)


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0
