"""The loop's graph expansion (QRMeM): the relations of the anchors' entities are scored
against the diagnosed gap by their triplets' stored vectors, in the store, not embedded
again."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from buildkit import HASH_SPEC, build, scripted_llm
from conftest import StoreFactory
from graphmind.ask.options import AskOptions
from graphmind.ask.state import Tools
from graphmind.ask.steps.expand import expand, relation_scores
from graphmind.ask.steps.gather import start
from graphmind.core.decision import Judgement
from graphmind.core.vectors import cosine
from graphmind.embed.hashing import HashingEmbedder
from graphmind.store.base import GraphStore

PASSAGES = [
    {"title": "Alpha Film", "text": "Alpha Film is a drama directed by Boris Kowalski."},
    {"title": "Boris Kowalski", "text": "Boris Kowalski married Clara Weiss in Warsaw."},
    {"title": "Gamma Film", "text": "Gamma Film is a comedy directed by Boris Kowalski."},
]


class CountingEmbedder(HashingEmbedder):
    """The hashed embedder, counting the texts it is asked to embed."""

    def __init__(self) -> None:
        super().__init__(HASH_SPEC)
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts += texts
        return super().embed(texts)


def _store(store: GraphStore, tmp_path: Path) -> tuple[Tools, CountingEmbedder]:
    corpus = tmp_path / "films.json"
    corpus.write_text(json.dumps(PASSAGES), encoding="utf-8")
    llm = scripted_llm(tmp_path / "cache.sqlite")
    build(store, [corpus], llm, extract="llm")
    embedder = CountingEmbedder()
    return Tools(store, embedder, llm, AskOptions(record=False)), embedder


def _relations(store: GraphStore, name: str) -> list[dict[str, object]]:
    ids = store.run_text(
        "MATCH (e:Entity) WHERE e.name = $name RETURN e.id AS id", {"name": name}
    ).records()
    return store.run("ask/entity_relations", {"ids": [r["id"] for r in ids], "limit": 50})


def test_relations_are_scored_by_their_triplets_stored_vectors(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    tools, embedder = _store(open_store(), tmp_path)
    relations = _relations(tools.store, "Boris Kowalski")
    assert len(relations) >= 2
    goal = embedder.embed(["whom did Boris Kowalski marry"])[0]
    embedder.texts.clear()
    scores = relation_scores(tools, goal, relations)
    assert embedder.texts == []  # every relation's triplet has its vector in the store
    for relation, score in zip(relations, scores, strict=True):
        rows = tools.store.run_text(
            "UNWIND $ids AS id MATCH (t:Triplet {id: id}) RETURN t.embedding AS v",
            {"ids": relation["triplet_ids"]},
        ).records()
        best = max(cosine(goal, r["v"]) for r in rows)
        assert abs(score - best) < 1e-4


def test_a_relation_without_stored_vectors_is_embedded(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    tools, embedder = _store(open_store(), tmp_path)
    relations = _relations(tools.store, "Boris Kowalski")
    bare = relations[0]
    tools.store._execute(  # a triplet written without its vector
        "UNWIND $ids AS id MATCH (t:Triplet {id: id}) SET t.embedding = null",
        {"ids": bare["triplet_ids"]},
        write=True,
    )
    goal = embedder.embed(["Boris Kowalski"])[0]
    embedder.texts.clear()
    scores = relation_scores(tools, goal, relations)
    text = f"{bare['name']} {bare['predicate']} {bare['neighbour_name']}"
    assert embedder.texts == [text]
    assert abs(scores[0] - cosine(goal, embedder.embed([text])[0])) < 1e-4


def test_the_expansion_adds_the_passage_behind_the_relation_the_gap_names(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    tools, _ = _store(open_store(), tmp_path)
    state = start(tools, "Whom did the director of Alpha Film marry?")
    anchor = tools.store.run_text(
        "MATCH (c:Chunk)-[:PART_OF]->(d:Document {title: 'Alpha Film'}) RETURN c.id AS id"
    ).records()
    gap = Judgement(missing="Boris Kowalski married Clara Weiss")
    added = expand(tools, state, gap, [anchor[0]["id"]])
    titles = tools.store.run_text(
        "UNWIND $ids AS id MATCH (c:Chunk {id: id})-[:PART_OF]->(d:Document) "
        "RETURN d.title AS title",
        {"ids": added},
    ).records()
    assert "Boris Kowalski" in [t["title"] for t in titles]
