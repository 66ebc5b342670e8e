"""What a retriever is: a query in, one ranked list of chunk ids out (best first)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from graphmind.store.base import GraphStore

Ranking = list[str]


@dataclass(frozen=True)
class Query:
    """The query a retriever searches for: its text and its embedding (``found``: searches
    that several retrievers read, made once per query)."""

    text: str
    vector: list[float]
    found: dict[str, Ranking] = field(default_factory=dict, compare=False, repr=False)


@dataclass
class RetrieveOptions:
    """How wide each retriever looks (which retrievers run is the recipe's part)."""

    per_list: int = 20
    summaries: int = 5
    per_summary: int = 3
    seeds: int = 5
    max_triplets: int = 6


class Retriever(Protocol):
    """One retriever, registered by ``name`` in ``graphmind.ask.retrievers.RETRIEVERS``."""

    @property
    def name(self) -> str:
        """The name recipes run it by (``graphmind.core.recipes``)."""

    @property
    def source(self) -> str:
        """The name of its ranked list, kept on each candidate it found."""

    def search(self, store: GraphStore, query: Query, options: RetrieveOptions) -> Ranking:
        """Chunk ids for ``query``, best first; empty when it finds nothing."""


def text_chunks(store: GraphStore, query: Query, k: int) -> Ranking:
    """The ``k`` chunks the full-text index ranks first for the query (searched once)."""
    key = f"text:{k}"
    if key not in query.found:
        query.found[key] = [h.id for h in store.fulltext_search("Chunk", query.text, k)]
    return query.found[key]


def chunks_in_order(rows: list[dict[str, str]], key: str, order: Ranking) -> Ranking:
    """The ``chunk`` of each row, in the order of the items (triplets, communities…,
    named by ``key``) that led to them, each once."""
    position = {item: i for i, item in enumerate(order)}
    ranked = sorted(rows, key=lambda r: (position.get(r[key], len(order)), r["chunk"]))
    seen: dict[str, None] = {}
    for row in ranked:
        seen.setdefault(row["chunk"], None)
    return list(seen)


def nearest_then_chunks(
    store: GraphStore, label: str, query: Query, width: int, statement: str, **params: Any
) -> Ranking:
    """The chunks the ``width`` ``label`` nodes nearest the query lead to (by the named
    ``statement``, whose rows hold the node's id under ``label.lower()`` and a ``chunk``),
    in the nodes' order."""
    ids = [h.id for h in store.vector_search(label, query.vector, width)]
    rows = store.run(statement, {"ids": ids, **params})
    return chunks_in_order(rows, label.lower(), ids)
