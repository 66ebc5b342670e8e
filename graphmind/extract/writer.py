"""Write extraction results onto chunks already in the graph (the evolving sub-graph)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from graphmind.extract.extractor import ChunkExtraction, entity_text, graph_rows, triplet_text
from graphmind.store.base import GraphStore, iter_batches

if TYPE_CHECKING:
    from graphmind.embed import Embedder

RELATED_BATCH = 500
EXISTING_BATCH = 2000


def write_extractions(store: GraphStore, embedder: Embedder, results: list[ChunkExtraction]) -> int:
    """Add the entities and triplets of ``results`` to their chunks, embed what is new,
    and rebuild ``RELATED`` for the entities touched. Returns the triplets written."""
    rows: list[dict[str, Any]] = []
    for result in results:
        entities, triplets = graph_rows([result])
        rows.append(
            {
                "chunk_id": result.chunk_id,
                "status": result.status,
                "entities": [{**asdict(e), "embedding": None} for e in entities],
                "triplets": [t.as_row() for t in triplets],
            }
        )
    _embed_new(store, embedder, rows)
    store.write_rows("extract/write_chunk_graph", rows, batch_size=len(rows) or 1)
    touched = sorted({e["id"] for r in rows for e in r["entities"]})
    for batch in iter_batches(touched, RELATED_BATCH):
        store.run("build/refresh_related", {"ids": batch}, write=True)
    return sum(len(r["triplets"]) for r in rows)


def _embed_new(store: GraphStore, embedder: Embedder, rows: list[dict[str, Any]]) -> None:
    """Embeddings for entities and triplets the store does not have yet (first mention)."""
    targets = new_graph_items(store, rows)
    vectors = embedder.embed([text for _, text in targets]) if targets else []
    for (item, _), vector in zip(targets, vectors, strict=True):
        item["embedding"] = vector


def new_graph_items(
    store: GraphStore, rows: list[dict[str, Any]], coming: Collection[str] = ()
) -> list[tuple[dict[str, Any], str]]:
    """The entities and triplets of ``rows`` (rows with ``entities`` and ``triplets``
    lists) that the store has no vector for, and that are not ``coming`` (a write in
    flight brings them with theirs), each with the text to embed. Only the first mention
    of one is returned: it is the one that creates the node and its description."""
    ahead = set(coming)
    targets: list[tuple[dict[str, Any], str]] = []
    for label, key, text_of in (
        ("Entity", "entities", entity_text),
        ("Triplet", "triplets", triplet_text),
    ):
        ids = sorted({item["id"] for r in rows for item in r[key]} - ahead)
        known = ahead | {
            r["id"]
            for batch in iter_batches(ids, EXISTING_BATCH)
            for r in store.run("build/existing_ids", {"ids": batch}, label=label)
        }
        for row in rows:
            for item in row[key]:
                if item["id"] not in known:
                    known.add(item["id"])
                    targets.append((item, text_of(item)))
    return targets
