"""Listing, showing and deleting documents: the graph stays whole (chunks, triplets,
entities only the document held, RELATED, communities, episodes), and decisions that
used the document keep their record with a note of what is gone."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from buildkit import CORPUS, HASH_SPEC, build, dump, entity_names, scripted_llm
from conftest import FIRST_SEEN, StoreFactory
from graphmind.communities.episodes import build_episodes
from graphmind.communities.pipeline import build_communities
from graphmind.core.errors import ConfigError
from graphmind.embed.hashing import HashingEmbedder
from graphmind.ingest.documents import (
    delete_documents,
    find_documents,
    list_documents,
    show_document,
)
from graphmind.store.base import GraphStore
from graphmind.store.schema import META_ID
from helpers.cli import graphmind

CORPUS_SIDE = ("Document", "Chunk", "Entity", "Triplet")


def _built(store: GraphStore, corpus: Path, tmp_path: Path) -> None:
    build(store, [corpus], scripted_llm(tmp_path / "cache.sqlite"))
    embedder = HashingEmbedder(HASH_SPEC)
    build_communities(store, embedder, None)
    build_episodes(store, embedder, None)


def _cite(store: GraphStore, title: str, decision: str) -> str:
    chunk = store.run_text(
        "MATCH (c:Chunk)-[:PART_OF]->(:Document {title: $t}) RETURN c.id AS id", {"t": title}
    ).records()[0]["id"]
    store.run(
        "testing/cite_chunk",
        {"chunk": chunk, "decision": decision, "question": f"about {title}?"},
        write=True,
    )
    return str(chunk)


def _corpus_side(store: GraphStore) -> dict[str, list[tuple[str, ...]]]:
    """The graph without communities, episodes and decisions (what a fresh build makes)."""
    whole = dump(store, volatile=FIRST_SEEN)
    ids = {n[1] for n in whole["nodes"] if n[0] in CORPUS_SIDE}
    return {
        "nodes": [n for n in whole["nodes"] if n[0] in CORPUS_SIDE],
        "rels": [r for r in whole["rels"] if r[0] in ids and r[2] in ids],
    }


def _consistent(store: GraphStore) -> None:
    def one(query: str) -> int:
        return int(store.run_text(query).records()[0]["n"])

    assert one("MATCH (c:Chunk) WHERE NOT (c)-[:PART_OF]->(:Document) RETURN count(c) AS n") == 0
    assert (
        one("MATCH (t:Triplet) WHERE NOT (t)-[:MENTIONED_IN]->(:Chunk) RETURN count(t) AS n") == 0
    )
    assert (
        one("MATCH (e:Entity) WHERE NOT (e)<-[:SUBJECT|OBJECT]-(:Triplet) RETURN count(e) AS n")
        == 0
    )
    assert one("MATCH (p:Pending) RETURN count(p) AS n") == 0
    assert one("MATCH (e:Episode) WHERE NOT (e)-[:COVERS]->(:Chunk) RETURN count(e) AS n") == 0
    weight = store.run_text(
        "MATCH (:Entity)-[r:RELATED]->(:Entity) RETURN coalesce(sum(r.weight), 0) AS n"
    ).records()[0]["n"]
    assert weight == store.counts()["Triplet"]


def test_delete_keeps_the_graph_whole_and_decisions_keep_their_record(
    open_store: StoreFactory, corpus: Path, tmp_path: Path
) -> None:
    store = open_store()
    _built(store, corpus, tmp_path)
    chunk = _cite(store, "Lise Meitner", "d-meitner")
    _cite(store, "Otto Hahn", "d-hahn")
    names = entity_names(store)
    assert {"Lise Meitner", "Vienna", "Otto Hahn"} <= names
    communities = store.counts()["Community"]
    assert communities > 0 and store.counts()["Episode"] == 5

    shown = show_document(store, "Lise Meitner")
    assert shown.document.title == "Lise Meitner" and len(shown.chunks) == 1
    assert "Vienna" in shown.entities and shown.decisions == ["d-meitner"]
    before = dump(store, volatile=())
    dry = delete_documents(store, ["Lise Meitner"], dry_run=True)
    assert dump(store, volatile=()) == before  # a dry run writes nothing
    report = delete_documents(store, ["Lise Meitner"])
    assert (dry.chunks, dry.triplets, dry.entities, dry.communities, dry.episodes) == (
        report.chunks,
        report.triplets,
        report.entities,
        report.communities,
        report.episodes,
    )
    assert [d.title for d in report.documents] == ["Lise Meitner"]
    assert report.chunks == 1 and report.triplets > 0 and report.episodes == 1
    assert report.decisions_noted == 1 and report.communities > 0

    left = entity_names(store)
    assert "Vienna" not in left and "Lise Meitner" not in left  # only this document had them
    assert "Otto Hahn" in left  # another document mentions him
    _consistent(store)
    touched = store.run_text(
        "MATCH (c:Community)-[:SUMMARY_FOR]->(e:Entity {name: 'Otto Hahn'}) RETURN count(c) AS n"
    ).records()
    assert touched == [{"n": 0}]  # communities that summarised a touched entity are gone
    stale = store.run("community/status", {"id": META_ID})[0]
    assert stale["stale"] is True
    decision = store.run_text(
        "MATCH (d:Decision {id: 'd-meitner'}) OPTIONAL MATCH (d)-[r]->() "
        "RETURN d.removed_evidence AS notes, count(r) AS edges"
    ).records()[0]
    assert decision["edges"] == 0
    cited = [n for n in decision["notes"] if n.startswith(f"chunk {chunk} ")]
    assert len(cited) == 1 and "'Lise Meitner'" in cited[0] and "cited in the answer" in cited[0]
    assert any(n.startswith("triplet ") and "judged" in n for n in decision["notes"])
    hahn = store.run_text(
        "MATCH (d:Decision {id: 'd-hahn'})-[r:CITED]->() "
        "RETURN d.removed_evidence AS notes, count(r) AS n"
    ).records()
    assert hahn == [{"notes": None, "n": 1}]  # untouched

    with pytest.raises(ConfigError, match="no document matches"):
        delete_documents(store, ["Lise Meitner"])
    notes = store.run_text(
        "MATCH (d:Decision {id: 'd-meitner'}) RETURN size(d.removed_evidence) AS n"
    ).records()
    assert notes == [{"n": len(decision["notes"])}]


def test_delete_equals_a_build_without_the_document(
    open_store: StoreFactory, corpus: Path, tmp_path: Path
) -> None:
    store = open_store()
    build(store, [corpus], scripted_llm(tmp_path / "cache.sqlite"))
    delete_documents(store, [str(corpus / "notes" / "einstein.md")])
    _consistent(store)
    deleted = _corpus_side(store)
    store.wipe()
    (corpus / "notes" / "einstein.md").unlink()
    build(store, [corpus], scripted_llm(tmp_path / "cache.sqlite"))
    assert _corpus_side(store) == deleted


def test_names_that_match_several_documents_need_all(
    open_store: StoreFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "same.txt").write_text("First text.")
    (tmp_path / "b" / "same.txt").write_text("Second text.")
    passages = [{"title": "One", "text": "one."}, {"title": "Two", "text": "two."}]
    (tmp_path / "corpus.json").write_text(json.dumps(passages))
    store = open_store()
    build(store, [tmp_path / "a", tmp_path / "b", tmp_path / "corpus.json"], None, extract="none")
    assert [d.title for d in list_documents(store)] == ["same", "same", "One", "Two"]
    assert [d.title for d in list_documents(store, match="TWO")] == ["Two"]
    assert len(list_documents(store, limit=1)) == 1
    assert [d.title for d in find_documents(store, str(tmp_path / "corpus.json"))] == [
        "One",
        "Two",
    ]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # file names that are not there from here: their ends match
    assert [d.source for d in find_documents(store, "same.txt")] == [
        str(tmp_path / "a" / "same.txt"),
        str(tmp_path / "b" / "same.txt"),
    ]
    assert [d.title for d in find_documents(store, "b/same.txt")] == ["same"]
    assert [d.title for d in find_documents(store, "corpus.json")] == ["One", "Two"]
    assert find_documents(store, "ame.txt") == [] and find_documents(store, "/same.txt") == []
    with pytest.raises(ConfigError, match=r"matches 2 documents.*--all"):
        delete_documents(store, ["same"])
    with pytest.raises(ConfigError, match="no document matches 'nothing'"):
        delete_documents(store, ["nothing"])
    assert store.counts()["Document"] == 4
    report = delete_documents(store, ["same", str(tmp_path / "corpus.json")], allow_many=True)
    assert len(report.documents) == 4 and store.counts()["Document"] == 0
    assert store.counts()["Chunk"] == 0


def test_documents_command(tmp_path: Path) -> None:
    env = {"GRAPHMIND_EMBEDDER": "hash:384"}
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    assert graphmind(tmp_path, "build", "corpus", "--extract", "none", env=env).returncode == 0
    listed = graphmind(tmp_path, "documents", "list", env=env)
    assert listed.returncode == 0, listed.stderr
    assert "Lise Meitner" in listed.stdout and "5 document(s)" in listed.stdout
    shown = graphmind(tmp_path, "documents", "show", "Niels Bohr", "--json", env=env)
    assert shown.returncode == 0, shown.stderr
    detail = json.loads(shown.stdout)
    assert detail["document"]["title"] == "Niels Bohr" and len(detail["chunks"]) == 1
    dry = graphmind(tmp_path, "documents", "delete", "corpus/curie.txt", "--dry-run", env=env)
    assert dry.returncode == 0 and "would delete 1 document(s), 1 chunk(s)" in dry.stdout
    gone = graphmind(tmp_path, "documents", "delete", "corpus/curie.txt", "--json", env=env)
    assert gone.returncode == 0 and json.loads(gone.stdout)["chunks"] == 1
    missing = graphmind(tmp_path, "documents", "delete", "corpus/curie.txt", "--json", env=env)
    assert missing.returncode == 3
    assert "no document matches" in json.loads(missing.stdout)["error"]
    assert "Traceback" not in missing.stderr
    left = graphmind(tmp_path, "documents", "list", "--json", env=env)
    assert len(json.loads(left.stdout)) == 4
