"""The documents in a store: list them, show one, delete some with the graph kept whole.

Deleting a document removes its chunks, the triplets only its chunks mention, the
entities only those triplets held, and what was derived from them (communities that
summarised a touched entity, episodes that covered a chunk; the community layer is
marked stale so the next ``graphmind build`` or ``graphmind communities`` redoes it).
``RELATED`` edges of the touched entities are rebuilt from the triplets that stay.
Decisions that judged or cited the deleted evidence keep their record: each gets a
``removed_evidence`` note per item saying what was removed, from which document, when,
and whether the answer cited it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphmind.communities.incremental import mark_changed
from graphmind.core.errors import BadInputError, NotFoundError
from graphmind.ingest.pipeline import settle_pending
from graphmind.store.base import GraphStore, iter_batches
from graphmind.store.schema import META_ID

BATCH = 500
DOCUMENT_BATCH = 50  # documents deleted per write (each takes its chunks along)


@dataclass(frozen=True)
class DocumentInfo:
    """One document as stored."""

    id: str
    title: str
    source: str
    chunks: int
    extract_mode: str
    ingested_at: int | None


@dataclass
class DocumentDetail:
    """A document with its chunks and what hangs on them."""

    document: DocumentInfo
    chunks: list[dict[str, Any]]
    triplets: int
    triplets_shared: int
    entities: list[str]
    communities: int
    episodes: int
    decisions: list[str]


@dataclass
class DeleteReport:
    """What deleting documents removed (or, with ``dry_run``, would remove)."""

    documents: list[DocumentInfo] = field(default_factory=list)
    chunks: int = 0
    triplets: int = 0
    entities: int = 0
    communities: int = 0
    episodes: int = 0
    decisions_noted: int = 0
    dry_run: bool = False

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        data = dict(self.__dict__)
        data["documents"] = [d.__dict__ for d in self.documents]
        return data


@dataclass
class _Impact:
    chunks: list[str]
    gone_triplets: list[str]
    kept_triplets: list[str]
    touched: list[str]
    gone_entities: list[str]
    communities: list[str]
    episodes: list[str]
    decisions: dict[str, list[dict[str, Any]]]


LIST_LIMIT = 1000  # documents listed at most, unless asked otherwise


def list_documents(
    store: GraphStore, *, match: str | None = None, limit: int = LIST_LIMIT
) -> list[DocumentInfo]:
    """Documents by source; ``match`` keeps those whose title or source contains it."""
    if limit < 1:
        raise BadInputError(f"limit must be at least 1 (got {limit})")
    rows = store.run("documents/list", {"match": match or None, "limit": int(limit)})
    return [_info(r) for r in rows]


def find_documents(store: GraphStore, ref: str) -> list[DocumentInfo]:
    """Documents named by ``ref``: an id, a title, a source, or a file path (a corpus
    file names all its entries). A path that is not there from here names the files
    whose path ends with it (``notes.md``, ``docs/notes.md``)."""
    sources = [ref]
    prefix = suffix = None
    path = Path(ref).expanduser()
    if path.exists():
        resolved = str(path.resolve())
        sources.append(resolved)
        prefix = resolved + "#"
    elif ref.strip("/") and not path.is_absolute():
        suffix = "/" + ref.strip("/")
    rows = store.run(
        "documents/find", {"ref": ref, "sources": sources, "prefix": prefix, "suffix": suffix}
    )
    return [_info(r) for r in rows]


def show_document(store: GraphStore, ref: str) -> DocumentDetail:
    """One document with its chunks, triplets, entities, derived layers and decisions."""
    doc = _one(store, ref)
    impact = _impact(store, [doc.id])
    chunks = store.run("documents/chunks", {"ids": [doc.id]})
    names = {
        r["id"]: r["name"]
        for batch in iter_batches(impact.touched, BATCH)
        for r in store.run("documents/entities_kept", {"entities": list(batch), "gone": []})
    }
    return DocumentDetail(
        document=doc,
        chunks=[{k: v for k, v in r.items() if k != "document"} for r in chunks],
        triplets=len(impact.gone_triplets) + len(impact.kept_triplets),
        triplets_shared=len(impact.kept_triplets),
        entities=sorted(str(names.get(e) or e) for e in impact.touched),
        communities=len(impact.communities),
        episodes=len(impact.episodes),
        decisions=sorted(impact.decisions),
    )


def delete_documents(
    store: GraphStore, refs: list[str], *, dry_run: bool = False, allow_many: bool = False
) -> DeleteReport:
    """Delete the documents ``refs`` name (see :func:`find_documents`), keeping the graph
    consistent. A ref that names nothing is an error; one that names several documents
    (a title shared, a corpus file) needs ``allow_many``."""
    if not refs:
        raise BadInputError("name at least one document (an id, a title, a source or a file)")
    docs: dict[str, DocumentInfo] = {}
    for ref in refs:
        found = find_documents(store, ref)
        if not found:
            raise NotFoundError(f"no document matches {ref!r} (graphmind documents list)")
        if len(found) > 1 and not allow_many:
            names = ", ".join(f"{d.title} ({d.id})" for d in found[:5])
            more = f" and {len(found) - 5} more" if len(found) > 5 else ""
            raise BadInputError(
                f"{ref!r} matches {len(found)} documents ({names}{more}); "
                "name one by id, or pass --all to delete every one"
            )
        docs.update((d.id, d) for d in found)
    ids = list(docs)
    impact = _impact(store, ids)
    report = DeleteReport(
        documents=list(docs.values()),
        chunks=len(impact.chunks),
        triplets=len(impact.gone_triplets),
        entities=len(impact.gone_entities),
        communities=len(impact.communities),
        episodes=len(impact.episodes),
        decisions_noted=len(impact.decisions),
        dry_run=dry_run,
    )
    if dry_run:
        return report
    _note_decisions(store, impact, docs)
    for batch in iter_batches(impact.touched, BATCH):
        store.run("documents/mark_pending", {"ids": list(batch)}, write=True)
    if impact.communities:  # their other members go back into the next community run
        rows = store.run("community/members_and_descendants", {"ids": impact.communities})
        mark_changed(store, sorted({m for r in rows for m in r["members"]}))
    for label, node_ids in (("Community", impact.communities), ("Episode", impact.episodes)):
        for batch in iter_batches(node_ids, BATCH):
            store.run("documents/delete_nodes", {"ids": list(batch)}, write=True, label=label)
    for batch in iter_batches(ids, DOCUMENT_BATCH):
        store.run("documents/delete", {"ids": list(batch)}, write=True)
    settle_pending(store)
    if impact.touched or impact.communities:
        store.run("community/mark_stale", {"id": META_ID, "stale": True}, write=True)
    return report


def _impact(store: GraphStore, ids: list[str]) -> _Impact:
    """Everything deleting documents ``ids`` removes or touches."""
    chunks = [r["id"] for r in store.run("documents/chunks", {"ids": ids})]
    triplets = store.run("documents/triplets", {"chunks": chunks}) if chunks else []
    gone = [r["id"] for r in triplets if int(r["outside"]) == 0]
    kept = [r["id"] for r in triplets if int(r["outside"]) > 0]
    touched = sorted({e for r in triplets if int(r["outside"]) == 0 for e in r["entities"]})
    gone_entities = [
        r["id"]
        for batch in iter_batches(touched, BATCH)
        for r in store.run("documents/entities_kept", {"entities": list(batch), "gone": gone})
        if int(r["kept"]) == 0
    ]
    derived = store.run("documents/derived", {"entities": touched, "chunks": chunks})
    communities = sorted({r["id"] for r in derived if r["label"] == "Community"})
    episodes = sorted({r["id"] for r in derived if r["label"] == "Episode"})
    decisions: dict[str, list[dict[str, Any]]] = {}
    rows = store.run(
        "documents/decisions",
        {"chunks": chunks, "triplets": gone, "communities": communities},
    )
    for r in rows:
        items = decisions.setdefault(r["decision"], [])
        if r not in items:
            items.append(r)
    return _Impact(chunks, gone, kept, touched, gone_entities, communities, episodes, decisions)


def _note_decisions(store: GraphStore, impact: _Impact, docs: dict[str, DocumentInfo]) -> None:
    """Write a ``removed_evidence`` note on each decision that judged or cited what goes."""
    if not impact.decisions:
        return
    owner = {
        r["id"]: docs[r["document"]] for r in store.run("documents/chunks", {"ids": list(docs)})
    }
    when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    names = ", ".join(sorted({f"'{d.title}' ({d.source})" for d in docs.values()}))
    rows = []
    for decision, refs in sorted(impact.decisions.items()):
        cited = {(r["label"], r["id"]) for r in refs if r["kind"] == "CITED"}
        notes = []
        for label, item in sorted({(r["label"], r["id"]) for r in refs}):
            doc = owner.get(item)
            origin = f"'{doc.title}' ({doc.source})" if doc else names
            use = "cited in the answer" if (label, item) in cited else "judged"
            notes.append(
                f"{label.lower()} {item} of document {origin} was deleted on {when}; it was {use}"
            )
        rows.append({"decision": decision, "notes": notes})
    store.write_rows("documents/note_removed", rows)


def _one(store: GraphStore, ref: str) -> DocumentInfo:
    found = find_documents(store, ref)
    if not found:
        raise NotFoundError(f"no document matches {ref!r} (graphmind documents list)")
    if len(found) > 1:
        names = ", ".join(f"{d.title} ({d.id})" for d in found[:5])
        raise BadInputError(f"{ref!r} matches {len(found)} documents ({names}); name one by id")
    return found[0]


def _info(row: dict[str, Any]) -> DocumentInfo:
    return DocumentInfo(
        id=str(row["id"]),
        title=str(row["title"] or ""),
        source=str(row["source"] or ""),
        chunks=int(row["chunks"] or 0),
        extract_mode=str(row["extract_mode"] or ""),
        ingested_at=row["ingested_at"],
    )
