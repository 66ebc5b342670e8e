"""Vector searches remembered for one question.

One ``ask`` searches the same vector several times: round 1's passages, the chunk
retriever and the graph walk each search the question's vector among the chunks (k 10,
20 and 50), the triplet retriever and the walk among the triplets. On Neo4j 5.26 a
vector-index call costs 5 to 25 ms, little of it for k, so inside ``remembered_searches()``
a store answers a (label, vector) it has searched before from the earlier answer when
that asked for at least as many nodes: the front of a wider search is at least as exact
as a narrower one (both stores rank the index's candidates by exact cosine, and a wider
search has more candidates). Any write through the store forgets everything, so a
search never misses what the block itself wrote. The scope is a context variable, so
the threads of a server never share one.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

from graphmind.store.hits import VectorHit

Key = tuple[int, str, tuple[float, ...]]
_SEARCHES: ContextVar[dict[Key, tuple[int, list[VectorHit]]] | None] = ContextVar(
    "graphmind_searches", default=None
)


@contextmanager
def remembered_searches() -> Iterator[None]:
    """Within the block, each store searches a (label, vector) once (see the module)."""
    token = _SEARCHES.set({})
    try:
        yield
    finally:
        _SEARCHES.reset(token)


def recall(store: object, label: str, vector: Sequence[float], k: int) -> list[VectorHit] | None:
    """The ``k`` nearest from an earlier search at least as wide, if the block made one."""
    searches = _SEARCHES.get()
    if searches is None:
        return None
    known = searches.get((id(store), label, tuple(vector)))
    if known is None or known[0] < k:
        return None
    return known[1][:k]


def remember(
    store: object, label: str, vector: Sequence[float], k: int, hits: list[VectorHit]
) -> None:
    """Keep a search's answer for the rest of the block (outside one: nothing)."""
    searches = _SEARCHES.get()
    if searches is not None:
        searches[(id(store), label, tuple(vector))] = (k, list(hits))


def forget() -> None:
    """A write happened: later searches go to the store again."""
    searches = _SEARCHES.get()
    if searches:
        searches.clear()
