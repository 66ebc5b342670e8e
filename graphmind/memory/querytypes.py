"""Query types: questions grouped by embedding with online k-means.

A question joins the type with the nearest centroid when the cosine distance is within
a threshold; otherwise it opens a new type. The centroid moves toward each question
that joins (a running mean), inside the same query that writes the decision, so the
update is atomic with it; the same write copies it into the type's vector-indexed
``embedding``. The nearest types are found by that index (``TYPE_CANDIDATES`` of them,
with their cosine distances) and the nearest within the threshold is taken, so the read
is one bounded index query however many types there are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graphmind.core.ids import digest
from graphmind.core.vectors import cosine
from graphmind.store.base import GraphStore
from graphmind.store.schema import vector_index_name

DEFAULT_THRESHOLD = 0.45  # cosine distance; all-MiniLM puts same-template questions within it
LABEL_CHARS = 80
TYPE_CANDIDATES = 10  # nearest types read from the vector index


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
    rows = store.run(
        "memory/nearest_query_types",
        {
            "vector": list(vector),
            "k": TYPE_CANDIDATES,
            "index": vector_index_name("QueryType"),
        },
    )
    within = [r for r in rows if float(r["distance"]) <= threshold]
    if within:
        # the nearest; the first id on a tie, as when every centroid was compared here
        row = min(within, key=lambda r: (float(r["distance"]), str(r["id"])))
        return QueryTypeMatch(
            str(row["id"]),
            str(row["label"] or ""),
            False,
            max(0.0, float(row["distance"])),
            int(row["count"] or 0),
        )
    return QueryTypeMatch(digest("query-type", question), type_label(question), True, 0.0, 0)


def type_label(question: str) -> str:
    """A new query type's label: its first question, on one line, cut."""
    return " ".join(question.split())[:LABEL_CHARS]


def nearest(
    vector: Sequence[float], centroids: Sequence[Sequence[float]], threshold: float
) -> tuple[int, float] | None:
    """(index, cosine distance) of the nearest centroid within ``threshold``, or None."""
    best: tuple[int, float] | None = None
    for i, centroid in enumerate(centroids):
        distance = 1.0 - cosine(vector, centroid)
        if distance <= threshold and (best is None or distance < best[1]):
            best = (i, distance)
    return best


def cluster(vectors: Sequence[Sequence[float]], threshold: float = DEFAULT_THRESHOLD) -> list[int]:
    """Online k-means over ``vectors`` in order, as ``ask`` assigns types: each vector's
    cluster number (numbered by first appearance)."""
    centroids: list[list[float]] = []
    sizes: list[int] = []
    labels: list[int] = []
    for vector in vectors:
        found = nearest(vector, centroids, threshold)
        if found is None:
            centroids.append(list(vector))
            sizes.append(1)
            labels.append(len(centroids) - 1)
            continue
        i = found[0]
        sizes[i] += 1
        centroids[i] = [c + (x - c) / sizes[i] for c, x in zip(centroids[i], vector, strict=True)]
        labels.append(i)
    return labels
