"""Inside ``remembered_searches()`` a store answers a vector search it has made before from
that answer (one ask searches the question's vector among the chunks three times), and
only there: a wider search, a write, another thread or the end of the block asks the
store again."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from buildkit import HASH_SPEC, build
from conftest import StoreFactory
from graphmind.embed.hashing import HashingEmbedder
from graphmind.store.base import GraphStore
from graphmind.store.hits import VectorHit
from graphmind.store.memo import remembered_searches

PASSAGES = [
    {"title": f"Harbour {i}", "text": f"Harbour {i} ships grain and timber."} for i in range(30)
]


def _searches(store: GraphStore) -> list[int]:
    """Counts the store's vector-search queries (a list, so the count can be read back)."""
    count = [0]
    run = store.run

    def counted(name: str, params: object = None, **kw: object) -> object:
        if name == "store/vector_search":
            count[0] += 1
        return run(name, params, **kw)  # type: ignore[arg-type]

    store.run = counted  # type: ignore[method-assign,assignment]
    return count


def _store(open_store: StoreFactory, tmp_path: Path) -> GraphStore:
    corpus = tmp_path / "harbours.json"
    corpus.write_text(json.dumps(PASSAGES), encoding="utf-8")
    store = open_store()
    build(store, [corpus], None, extract="none")
    return store


def test_a_narrower_search_is_the_front_of_a_wider_one(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    store = _store(open_store, tmp_path)
    vector = HashingEmbedder(HASH_SPEC).embed(["grain ships of Harbour 7"])[0]
    direct = {k: store.vector_search("Chunk", vector, k) for k in (5, 20)}
    count = _searches(store)
    with remembered_searches():
        wide = store.vector_search("Chunk", vector, 20)
        narrow = store.vector_search("Chunk", vector, 5)
        assert count[0] == 1
        assert _ids(wide) == _ids(direct[20]) and _ids(narrow) == _ids(direct[20][:5])
        assert [h.similarity for h in narrow] == [h.similarity for h in direct[5]]
        store.vector_search("Chunk", vector, 25)  # wider than any before: asked
        store.vector_search("Entity", vector, 5)  # another label: asked
        assert count[0] == 3
        store._write("MERGE (p:Probe {id: 'p'}) RETURN p.id", {})  # any write: forgotten
        store.vector_search("Chunk", vector, 5)
        assert count[0] == 4
    store.vector_search("Chunk", vector, 5)  # outside the block: asked every time
    store.vector_search("Chunk", vector, 5)
    assert count[0] == 6


def test_another_thread_does_not_share_the_block(open_store: StoreFactory, tmp_path: Path) -> None:
    store = _store(open_store, tmp_path)
    vector = HashingEmbedder(HASH_SPEC).embed(["timber"])[0]
    count = _searches(store)
    with remembered_searches():
        store.vector_search("Chunk", vector, 10)
        other = threading.Thread(target=store.vector_search, args=("Chunk", vector, 10))
        other.start()
        other.join()
    assert count[0] == 2


def _ids(hits: list[VectorHit]) -> list[str]:
    return [h.id for h in hits]
