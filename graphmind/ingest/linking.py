"""The link stage's search for near-duplicate entities: exact in memory for a build that
brings most of the store's entities, through the vector index for a few new ones among
many; and the name test a candidate pair must pass."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any

from graphmind.extract.normalize import normalize_name
from graphmind.store.base import GraphStore, Row, iter_batches

LINK_BATCH = 500  # entities per query (and per block of the exact search)
EXACT_LINK_LIMIT = 50_000  # up to this many entities, near-duplicates by exact search
# ... when at least this share of them is pending: the exact search reads every entity's
# vector it does not hold (about 1 ms each on FalkorDB Lite: 19 s for 200 pending among
# 20,000), an index query per pending entity costs 1.4 to 3.5 ms; so a build that adds a
# few entities to a large store queries the index and costs what it adds, not the store
EXACT_LINK_SHARE = 0.5
VECTOR_PAGE = 5_000  # entities (or their vectors) read per query by the exact search
SAME_FIRST_LAST = 0.9  # name similarity of multi-word names that share first and last word
SAME_AS_NEIGHBOURS = 6  # nearest entities checked as near-duplicates of a pending one


def exact_link(pending: int, entities: int) -> bool:
    """Whether the link stage finds the near-duplicates of ``pending`` entities among a
    store's ``entities`` by exact search in memory (else by vector-index queries)."""
    return entities <= EXACT_LINK_LIMIT and pending >= EXACT_LINK_SHARE * entities


def same_as_pairs(
    store: GraphStore,
    pending: list[Row],
    similarity: float,
    name_ratio: float,
    *,
    known: Mapping[str, Sequence[float]] | None = None,
) -> dict[tuple[str, str], dict[str, Any]]:
    """Pending entities' (id, name, type rows) near-duplicates, keyed (duplicate, keep):
    among their ``SAME_AS_NEIGHBOURS`` nearest entities at ``similarity`` or more, alike
    in name (``name_ratio``), and not of clearly different types. Each pair of entities
    is judged once, whichever of the two found the other. ``known``: entity vectors the
    caller holds (the exact search reads only the others)."""
    if not pending:
        return {}
    ids = [r["id"] for r in pending]
    entities = int(store.run("store/count_label", label="Entity")[0]["count"])
    if exact_link(len(pending), entities):
        candidates = nearest_entities(
            store,
            ids,
            SAME_AS_NEIGHBOURS,
            similarity,
            known=known,
            every=pending if len(pending) == entities else None,  # a first build
        )
    else:
        candidates = []
        for batch in iter_batches(ids, LINK_BATCH):
            candidates += store.run(
                "build/similar_entities",
                {"ids": batch, "k": SAME_AS_NEIGHBOURS, "min_similarity": similarity},
            )
    pairs: dict[tuple[str, str], dict[str, Any]] = {}
    judged: set[tuple[str, str]] = set()
    for c in sorted(candidates, key=lambda c: (c["id"], -c["similarity"], c["other"])):
        first, second = sorted((c["id"], c["other"]))
        if (second, first) in judged:
            continue
        judged.add((second, first))
        if not types_compatible(c["type"], c["other_type"]):
            continue
        ratio = name_similarity(c["name"], c["other_name"], name_ratio)
        if ratio < name_ratio:
            continue
        pairs[(second, first)] = {
            "source": second,
            "target": first,
            "similarity": c["similarity"],
            "name_similarity": ratio,
        }
    return pairs


def read_entity_vectors(store: GraphStore, ids: Sequence[str]) -> dict[str, Any]:
    """The stored vectors of the entities ``ids`` (those that have one), by id, read
    ``VECTOR_PAGE`` at a time."""
    vectors: dict[str, Any] = {}
    for batch in iter_batches(list(ids), VECTOR_PAGE):
        for r in store.run("build/entity_vectors", {"ids": batch}):
            if r["embedding"] is not None:
                vectors[str(r["id"])] = r["embedding"]
    return vectors


def nearest_entities(
    store: GraphStore,
    ids: Sequence[str],
    k: int,
    min_similarity: float,
    *,
    known: Mapping[str, Sequence[float]] | None = None,
    every: Sequence[Row] | None = None,
) -> list[dict[str, Any]]:
    """What ``build/similar_entities`` gives, by an exact search in memory: for each of
    ``ids``, its ``k`` nearest entities (itself among them, then left out) whose
    similarity ``(1 + cos) / 2`` is at least ``min_similarity``. One read of every
    entity replaces a vector-index query per entity (3.5 ms each on Neo4j); the vectors
    in ``known`` (what the running build embedded) are not read again, nor the entities
    (id, name, type) when ``every`` holds them all."""
    import numpy as np  # only builds need it

    known = known or {}
    rows: list[dict[str, Any]] = list(every) if every is not None else []
    after = ""
    while every is None:
        page = store.run("build/entity_names", {"after": after, "limit": VECTOR_PAGE})
        rows += page
        if len(page) < VECTOR_PAGE:
            break
        after = str(page[-1]["id"])
    if not rows:
        return []
    vectors = {str(r["id"]): known[str(r["id"])] for r in rows if str(r["id"]) in known}
    missing = [str(r["id"]) for r in rows if str(r["id"]) not in vectors]
    vectors.update(read_entity_vectors(store, missing))
    rows = [r for r in rows if str(r["id"]) in vectors]  # deleted since the first read
    if not rows:
        return []
    matrix = np.asarray([vectors[str(r["id"])] for r in rows], dtype=np.float32)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    where = {str(r["id"]): i for i, r in enumerate(rows)}
    asked = [where[i] for i in ids if i in where]
    found: list[dict[str, Any]] = []
    floor = 2.0 * min_similarity - 1.0 - 1e-6  # the cosine below which none can pass
    for start in range(0, len(asked), LINK_BATCH):
        chunk = asked[start : start + LINK_BATCH]
        cosine = matrix[chunk] @ matrix.T
        at, cols = np.nonzero(cosine >= floor)  # few pass: sorted by row, then column
        bounds = np.searchsorted(at, np.arange(len(chunk) + 1))
        for row, i in enumerate(chunk):
            near = cols[bounds[row] : bounds[row + 1]]
            scores = cosine[row, near]
            if len(near) > k:  # the k nearest (itself among them) of those that pass
                best = np.argpartition(-scores, k - 1)[:k]
                near, scores = near[best], scores[best]
            e = rows[i]
            for j, cos in zip(near.tolist(), scores.tolist(), strict=True):
                score = (1.0 + cos) / 2.0
                if j == i or score < min_similarity:
                    continue
                other = rows[j]
                found.append(
                    {
                        "id": e["id"],
                        "name": e["name"],
                        "type": e["type"],
                        "other": other["id"],
                        "other_name": other["name"],
                        "other_type": other["type"],
                        "similarity": score,
                    }
                )
    return found


def name_similarity(a: str, b: str, at_least: float = 0.0) -> float:
    """How alike two names are: a character ratio of the normalised names, or at least
    ``SAME_FIRST_LAST`` when both have several words and agree on the first and last
    ("Marie Curie" and "Marie Sklodowska Curie"). A ratio whose quick upper bound is
    below ``at_least`` is not computed: that bound is returned instead."""
    x, y = normalize_name(a), normalize_name(b)
    if not x or not y:
        return 0.0
    wx, wy = x.split(), y.split()
    several = len(wx) > 1 and len(wy) > 1
    floor = SAME_FIRST_LAST if several and (wx[0], wx[-1]) == (wy[0], wy[-1]) else 0.0
    lengths = 2.0 * min(len(x), len(y)) / (len(x) + len(y))  # what real_quick_ratio says
    if max(lengths, floor) < at_least:
        return max(lengths, floor)
    matcher = difflib.SequenceMatcher(None, x, y)
    bound = max(matcher.quick_ratio(), floor)
    return bound if bound < at_least else max(matcher.ratio(), floor)


def types_compatible(a: Any, b: Any) -> bool:
    """Entities of clearly different types never merge; unknown matches anything."""
    ta, tb = str(a or "unknown").lower(), str(b or "unknown").lower()
    return ta == tb or "unknown" in (ta, tb)
