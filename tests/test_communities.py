"""The community layer on FalkorDB Lite: Leiden, summaries, PageRank, personalized PageRank."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from buildkit import HASH_SPEC, build, dump, provider_of, scripted_llm
from conftest import StoreFactory
from graphmind.communities import context
from graphmind.communities.algorithms import hierarchical_leiden, leiden_partition, modularity
from graphmind.communities.centrality import personalized_pagerank_ranking
from graphmind.communities.pipeline import (
    CommunityOptions,
    build_communities,
    communities_stale,
    refresh_communities,
)
from graphmind.embed.hashing import HashingEmbedder
from graphmind.ingest.documents import delete_documents, list_documents
from graphmind.llm.base import Message
from graphmind.llm.client import LLM
from graphmind.store.base import GraphStore, Projection

# Two tight clusters of five people each; one relation joins them.
CLUSTERS = {
    "a": ["Alice Archer", "Arthur Ash", "Anna Abbot", "Adam Ames", "Agnes Alder"],
    "b": ["Boris Baker", "Bella Brook", "Bruno Bell", "Beth Bond", "Basil Birch"],
}
BRIDGE = ("Alice Archer", "met", "Boris Baker")


def cluster_text(people: list[str]) -> str:
    sentences = [f"{p} worked with {q}." for i, p in enumerate(people) for q in people[i + 1 :]]
    return " ".join(sentences)


def extraction(messages: list[Message]) -> str:
    """Relations of 'X worked with Y.' and 'X met Y.' sentences."""
    passage = messages[1]["content"].split("\n", 1)[-1]
    relations = [
        {"subject": s, "predicate": p, "object": o}
        for s, p, o in re.findall(
            r"([A-Z]\w+ [A-Z]\w+) (worked with|met) ([A-Z]\w+ [A-Z]\w+)", passage
        )
    ]
    names = sorted({r["subject"] for r in relations} | {r["object"] for r in relations})
    return json.dumps(
        {"entities": [{"name": n, "type": "person"} for n in names], "relations": relations}
    )


def summary(messages: list[Message]) -> str:
    """A community summary naming its members."""
    members = re.findall(r"^- ([A-Z]\w+ [A-Z]\w+) \(", messages[1]["content"], re.MULTILINE)
    return json.dumps(
        {
            "title": f"Circle of {members[0]}",
            "summary": "Members: " + ", ".join(members) + ".",
            "key_facts": members[:3],
        }
    )


def responder(messages: list[Message]) -> str:
    return summary(messages) if "Entities:" in messages[1]["content"] else extraction(messages)


def write_clusters(folder: Path) -> Path:
    """The two clusters and the bridge between them as three text files in ``folder``."""
    folder.mkdir()
    for key, people in CLUSTERS.items():
        (folder / f"{key}.txt").write_text(cluster_text(people))
    (folder / "bridge.txt").write_text(f"{BRIDGE[0]} {BRIDGE[1]} {BRIDGE[2]}.")
    return folder


@pytest.fixture
def clustered(open_store: StoreFactory, tmp_path: Path) -> tuple[GraphStore, LLM]:
    corpus = write_clusters(tmp_path / "corpus")
    store = open_store()
    llm = scripted_llm(tmp_path / "cache.sqlite", responder)
    build(store, [corpus], llm, resolve="off")
    return store, llm


def members(store: GraphStore, level: int) -> list[set[str]]:
    rows = store.run_text(
        "MATCH (c:Community {level: $level})-[:SUMMARY_FOR]->(e:Entity) "
        "RETURN c.id AS c, collect(e.name) AS names",
        {"level": level},
    ).records()
    return [set(r["names"]) for r in rows]


def test_leiden_finds_the_two_clusters(clustered: tuple[GraphStore, LLM]) -> None:
    store, llm = clustered
    stats = build_communities(store, HashingEmbedder(HASH_SPEC), llm)
    assert stats.algorithm.startswith("leiden")
    assert sorted(members(store, 0), key=sorted) == [set(CLUSTERS["a"]), set(CLUSTERS["b"])]
    assert stats.levels == {0: 2} and stats.modularity is not None and stats.modularity > 0.3
    rows = store.run_text(
        "MATCH (c:Community) RETURN c.title AS title, c.summary AS summary, "
        "c.summary_status AS status, c.embedding IS NOT NULL AS embedded, c.size AS size"
    ).records()
    assert len(rows) == 2 and all(r["embedded"] and r["status"] == "llm" for r in rows)
    assert all(r["size"] == 5 and r["summary"].startswith("Members: ") for r in rows)
    titles = {r["title"] for r in rows}
    hit = store.vector_search(
        "Community", HashingEmbedder(HASH_SPEC).embed(["Members: Boris Baker, Bella Brook"])[0], 1
    )[0]
    assert "Boris Baker" in hit.properties["summary"] and hit.properties["title"] in titles
    pageranks = store.run_text(
        "MATCH (e:Entity) RETURN e.name AS name, e.pagerank AS pr ORDER BY pr DESC"
    ).records()
    assert all(r["pr"] is not None for r in pageranks)
    assert pageranks[0]["name"] in (BRIDGE[0], BRIDGE[2])  # the bridge ends are most central


def test_rerun_changes_nothing_and_calls_no_llm(
    clustered: tuple[GraphStore, LLM], tmp_path: Path
) -> None:
    store, llm = clustered
    build_communities(store, HashingEmbedder(HASH_SPEC), llm)
    before = dump(store, volatile=())
    calls = llm.provider.calls  # type: ignore[attr-defined]
    stats = build_communities(store, HashingEmbedder(HASH_SPEC), llm)
    assert stats.new == 0 and stats.unchanged == 2 and stats.deleted == 0
    assert llm.provider.calls == calls  # type: ignore[attr-defined]
    assert dump(store, volatile=()) == before


def test_without_llm_summaries_fall_back_to_names(clustered: tuple[GraphStore, LLM]) -> None:
    store, _ = clustered
    stats = build_communities(store, HashingEmbedder(HASH_SPEC), None)
    assert stats.summarised == 0 and stats.new == 2
    statuses = store.run_text("MATCH (c:Community) RETURN DISTINCT c.summary_status AS s").records()
    assert statuses == [{"s": "names"}]


# one community's context as a single query read it before contexts were read in groups
ONE_CONTEXT = """
UNWIND $ids AS id
MATCH (e:Entity {id: id})
WITH e ORDER BY coalesce(e.pagerank, 0.0) DESC, e.id
LIMIT $max_entities
WITH collect(e) AS members
UNWIND members AS a
OPTIONAL MATCH (a)-[r:RELATED]->(b:Entity)
WHERE b IN members
WITH members, a, b, r ORDER BY r.weight DESC, a.id, b.id
WITH members, collect(CASE WHEN r IS NULL THEN []
  ELSE [{subject: a.name, predicate: r.predicate, object: b.name, weight: r.weight}] END) AS found
WITH members, reduce(rels = [], x IN found | rels + x) AS rels
RETURN [m IN members | {name: m.name, type: m.type, description: m.description}] AS entities,
       rels[0..$max_relations] AS relations
"""


def test_contexts_read_in_groups_match_one_community_at_a_time(
    clustered: tuple[GraphStore, LLM], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, _ = clustered
    # distinct scores, so that both readings rank members the same way (FalkorDB returns
    # doubles to 15 digits: PageRank's near-ties would order by id in one and not the other)
    names = sorted(CLUSTERS["a"] + CLUSTERS["b"])
    store._execute(
        "UNWIND $names AS name MATCH (e:Entity {name: name}) SET e.pagerank = $score[name]",
        {"names": names, "score": {n: (i * 7 % 10) / 10 for i, n in enumerate(names)}},
        write=True,
    )
    ids = {
        r["name"]: r["id"]
        for r in store.run_text("MATCH (e:Entity) RETURN e.name AS name, e.id AS id").records()
    }
    everyone = [ids[n] for n in CLUSTERS["a"] + CLUSTERS["b"]]
    groups = [[ids[n] for n in CLUSTERS["a"]], [ids[n] for n in CLUSTERS["b"]], everyone]
    for bound in (6, 2000):  # one group per community, and all of them in one
        monkeypatch.setattr(context, "GROUP_MEMBERS", bound)
        for max_entities, max_relations in ((30, 40), (3, 2)):
            got = context.community_contexts(store, groups, max_entities, max_relations)
            for members, found in zip(groups, got, strict=True):
                params = {
                    "ids": members,
                    "max_entities": max_entities,
                    "max_relations": max_relations,
                }
                want = store.run_text(ONE_CONTEXT, params).records()[0]
                assert found == want
    top = context.community_contexts(store, [everyone], 3, 40)[0]
    assert [e["name"] for e in top["entities"]] == ["Beth Bond", "Arthur Ash", "Agnes Alder"]
    # of their relations, only the one between two of the three
    assert [(r["subject"], r["object"]) for r in top["relations"]] == [
        ("Arthur Ash", "Agnes Alder")
    ]


def test_personalized_pagerank_ranks_the_seed_cluster_first(
    clustered: tuple[GraphStore, LLM],
) -> None:
    store, llm = clustered
    build_communities(store, HashingEmbedder(HASH_SPEC), llm)
    seed = store.run_text("MATCH (e:Entity {name: 'Bella Brook'}) RETURN e.id AS id").records()[0][
        "id"
    ]
    result = personalized_pagerank_ranking(store, [seed], k=20)
    top_entities = [
        store.run_text("MATCH (e:Entity {id: $id}) RETURN e.name AS n", {"id": e}).records()[0]["n"]
        for e, _ in result.entities[:5]
    ]
    assert set(top_entities) <= set(CLUSTERS["b"])
    chunk_docs = [
        store.run_text(
            "MATCH (c:Chunk {id: $id})-[:PART_OF]->(d:Document) RETURN d.title AS t", {"id": c}
        ).records()[0]["t"]
        for c, _ in result.chunks
    ]
    assert chunk_docs[0] == "b"
    assert chunk_docs.index("b") < chunk_docs.index("a")


def test_hierarchical_leiden_splits_large_communities() -> None:
    # four cliques of six; cliques 0-1 and 2-3 are joined by many edges, the pairs by one
    nodes = [f"n{c}{i}" for c in range(4) for i in range(6)]
    edges = [
        (f"n{c}{i}", f"n{c}{j}", 1.0) for c in range(4) for i in range(6) for j in range(i + 1, 6)
    ]
    edges += [(f"n0{i}", f"n1{i}", 1.0) for i in range(3)] + [
        (f"n2{i}", f"n3{i}", 1.0) for i in range(3)
    ]
    edges += [("n05", "n25", 1.0)]
    projection = Projection(nodes, edges)
    flat = leiden_partition(nodes, edges, resolution=0.3)
    assert len(flat) == 2
    levels = hierarchical_leiden(projection, resolution=0.3, max_size=8)
    top = [c for c in levels if c.level == 0]
    below = [c for c in levels if c.level == 1]
    assert len(top) == 2 and len(below) >= 4
    for child in below:
        assert set(child.members) <= set(levels[child.parent].members)  # type: ignore[index]
    assert modularity(projection, [c.members for c in top]) > 0.3
    assert hierarchical_leiden(projection, resolution=0.3, max_size=8) == levels  # deterministic


def test_options_are_respected(clustered: tuple[GraphStore, LLM]) -> None:
    store, llm = clustered
    stats = build_communities(
        store,
        HashingEmbedder(HASH_SPEC),
        llm,
        CommunityOptions(projection="cooccurrence", min_size=6),
    )
    assert stats.levels == {}  # every community has 5 members, below the minimum
    assert store.counts()["Community"] == 0


def test_only_changed_communities_are_summarised_again(
    clustered: tuple[GraphStore, LLM], tmp_path: Path
) -> None:
    store, llm = clustered
    build_communities(store, HashingEmbedder(HASH_SPEC), llm)
    a_before = {
        r["id"]
        for r in store.run_text(
            "MATCH (c:Community)-[:SUMMARY_FOR]->(:Entity {name: 'Anna Abbot'}) RETURN c.id AS id"
        ).records()
    }
    calls = llm.provider.calls  # type: ignore[attr-defined]
    extra = tmp_path / "more"
    extra.mkdir()
    (extra / "b2.txt").write_text(
        "Boris Baker worked with Brian Blake. Bella Brook worked with Brian Blake."
    )
    build(store, [extra], llm, resolve="off")
    stats = build_communities(store, HashingEmbedder(HASH_SPEC), llm)
    assert stats.new == 1 and stats.unchanged == 1 and stats.deleted == 1
    assert llm.provider.calls == calls + 2  # one extraction, one summary  # type: ignore[attr-defined]
    a_after = {
        r["id"]
        for r in store.run_text(
            "MATCH (c:Community)-[:SUMMARY_FOR]->(:Entity {name: 'Anna Abbot'}) RETURN c.id AS id"
        ).records()
    }
    assert a_after == a_before
    assert set(CLUSTERS["b"]) | {"Brian Blake"} in members(store, 0)


def test_gds_path(open_store: StoreFactory, backend: str) -> None:
    if backend != "neo4j":
        pytest.skip("GDS runs only on Neo4j")
    store = open_store()
    if not store.has_gds():
        pytest.skip("the Neo4j under test has no GDS plugin")
    store.ensure_schema(HASH_SPEC)
    rows = [{"id": f"e{c}{i}", "name": f"entity {c}{i}"} for c in range(2) for i in range(5)]
    store.write_rows("contract/merge_entities", rows)
    edges = [
        {"source": f"e{c}{i}", "target": f"e{c}{j}", "weight": 1.0}
        for c in range(2)
        for i in range(5)
        for j in range(i + 1, 5)
    ]
    store.write_rows(
        "contract/relate_entities", [*edges, {"source": "e00", "target": "e10", "weight": 1.0}]
    )
    stats = build_communities(store, HashingEmbedder(HASH_SPEC), None)
    assert stats.algorithm == "gds.leiden" and stats.pagerank == "gds.pageRank"
    assert sorted(len(m) for m in members(store, 0)) == [5, 5]
    result = personalized_pagerank_ranking(store, ["e13"], k=5)
    assert {e for e, _ in result.entities} <= {f"e1{i}" for i in range(5)}


def test_fallback_summary_fits_the_model_limits() -> None:
    from graphmind.communities.pipeline import _fallback

    long_names = [{"name": "N" * 80 + str(i), "type": "person"} for i in range(12)]
    report = _fallback({"entities": long_names, "relations": []})
    assert len(report.title) <= 120 and report.title.endswith("…")


THIRD = ["Carl Cole", "Cora Cane", "Cyril Cobb", "Clara Cross", "Colin Crane"]


@pytest.fixture
def three_circles(open_store: StoreFactory, tmp_path: Path) -> tuple[GraphStore, LLM]:
    """The two clusters, the bridge and a third, unconnected cluster, with communities."""
    corpus = write_clusters(tmp_path / "corpus")
    (corpus / "c.txt").write_text(cluster_text(THIRD))
    store = open_store()
    llm = scripted_llm(tmp_path / "cache.sqlite", responder)
    build(store, [corpus], llm, resolve="off")
    build_communities(store, HashingEmbedder(HASH_SPEC), llm)
    return store, llm


def community_ids(store: GraphStore) -> dict[frozenset[str], str]:
    rows = store.run_text(
        "MATCH (c:Community)-[:SUMMARY_FOR]->(e:Entity) RETURN c.id AS c, collect(e.name) AS names"
    ).records()
    return {frozenset(r["names"]): r["c"] for r in rows}


def markers(store: GraphStore) -> int:
    return int(store.run_text("MATCH (m:CommunityChange) RETURN count(m) AS n").records()[0]["n"])


def add_document(store: GraphStore, llm: LLM, folder: Path, text: str) -> None:
    folder.mkdir()
    (folder / "doc.txt").write_text(text)
    build(store, [folder], llm, resolve="off")


def test_a_new_entity_joins_the_community_it_is_tied_to_in_place(
    three_circles: tuple[GraphStore, LLM], tmp_path: Path
) -> None:
    store, llm = three_circles
    before = community_ids(store)
    assert markers(store) == 0  # the first run found no communities to mark against
    text = "Zed Zephyr worked with Arthur Ash. Zed Zephyr worked with Anna Abbot."
    add_document(store, llm, tmp_path / "more", text)
    assert markers(store) >= 3  # Zed Zephyr, Arthur Ash, Anna Abbot
    calls = provider_of(llm).calls
    stats = refresh_communities(store, HashingEmbedder(HASH_SPEC), llm, local=True)
    # Zed joins Arthur and Anna's circle, which keeps its id and summary: no Leiden, no
    # LLM call, nothing else touched
    assert stats.scope == "local" and stats.joined == 1 and stats.region == 0
    assert stats.new == 0 and stats.deleted == 0 and provider_of(llm).calls == calls
    after = community_ids(store)
    circle = frozenset([*CLUSTERS["a"], "Zed Zephyr"])
    assert after[circle] == before[frozenset(CLUSTERS["a"])]
    for people in (CLUSTERS["b"], THIRD):
        assert after[frozenset(people)] == before[frozenset(people)]
    size = store.run_text(
        "MATCH (c:Community {id: $id}) RETURN c.size AS n", {"id": after[circle]}
    ).records()
    assert size[0]["n"] == 6 and markers(store) == 0
    # the whole graph partitioned again agrees on every community's members
    full = build_communities(store, HashingEmbedder(HASH_SPEC), llm)
    assert full.scope == "full" and full.new == 1 and full.deleted == 1  # the circle's id
    assert set(community_ids(store)) == set(after)


def test_new_entities_tied_only_to_new_ones_follow_them_or_form_their_own(
    three_circles: tuple[GraphStore, LLM], tmp_path: Path
) -> None:
    store, llm = three_circles
    text = (
        "Zed Zephyr worked with Arthur Ash. Yara Yoon worked with Zed Zephyr. "
        "Quinn Quade worked with Quentin Quill. Quinn Quade worked with Queenie Quirk. "
        "Quentin Quill worked with Queenie Quirk."
    )
    add_document(store, llm, tmp_path / "more", text)
    stats = refresh_communities(store, HashingEmbedder(HASH_SPEC), llm, local=True)
    # Yara follows Zed into Arthur's circle; the three Qs, tied to no community, are
    # partitioned alone and make one new community
    assert stats.joined == 2 and stats.region == 3 and stats.new == 1
    groups = set(community_ids(store))
    assert frozenset([*CLUSTERS["a"], "Zed Zephyr", "Yara Yoon"]) in groups
    assert frozenset(["Quinn Quade", "Quentin Quill", "Queenie Quirk"]) in groups
    full = build_communities(store, HashingEmbedder(HASH_SPEC), llm)
    assert set(community_ids(store)) == groups and full.scope == "full"


def test_a_community_a_new_entity_would_grow_past_the_size_limit_is_partitioned_again(
    three_circles: tuple[GraphStore, LLM], tmp_path: Path
) -> None:
    store, llm = three_circles
    text = "Zed Zephyr worked with Arthur Ash. Zed Zephyr worked with Anna Abbot."
    add_document(store, llm, tmp_path / "more", text)
    options = CommunityOptions(max_size=5)  # the circle of 5 would hold 6
    stats = refresh_communities(store, HashingEmbedder(HASH_SPEC), llm, options, local=True)
    assert stats.joined == 0 and stats.region == 6  # the circle and Zed, by Leiden
    assert stats.new >= 1 and stats.deleted >= 1


def test_a_deleted_documents_communities_are_recomputed_locally(
    three_circles: tuple[GraphStore, LLM],
) -> None:
    store, llm = three_circles
    before = community_ids(store)
    (doc,) = [d for d in list_documents(store) if d.source.endswith("c.txt")]
    delete_documents(store, [doc.id])
    assert communities_stale(store)
    stats = refresh_communities(store, HashingEmbedder(HASH_SPEC), llm, local=True)
    assert stats.scope == "local" and stats.new == 0
    after = community_ids(store)
    assert after == {m: c for m, c in before.items() if not m & set(THIRD)}
    assert markers(store) == 0 and not communities_stale(store)
    full = build_communities(store, HashingEmbedder(HASH_SPEC), llm)
    assert full.new == 0 and full.deleted == 0
