"""The graph retriever (HippoRAG 2's walk): a passage the question never names, reached
through the facts of one it does, ranks where vector search does not find it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from buildkit import HASH_SPEC, build, scripted_llm
from conftest import StoreFactory
from graphmind.ask.options import AskOptions
from graphmind.ask.retrieve import candidates, first_round, rank_lists
from graphmind.ask.retrievers import (
    GRAPH_PPR,
    RETRIEVERS,
    TEXT_CHUNK,
    VECTOR_CHUNK,
    Query,
    RetrieveOptions,
)
from graphmind.ask.retrievers.base import text_chunks
from graphmind.ask.retrievers.graph import GraphOptions, graph_ranking
from graphmind.ask.state import Tools
from graphmind.ask.steps.gather import follow_up_passages, next_queries, retrieve, start
from graphmind.communities.algorithms import weighted_personalized_pagerank
from graphmind.core.decision import Candidate, Judgement, Round, Verdict
from graphmind.embed.hashing import HashingEmbedder
from graphmind.store.base import GraphStore, Projection
from graphmind.store.hits import TextHit

QUESTION = "Who did the director of Alpha Film marry?"
BRIDGE = "Boris Kowalski"
PASSAGES = [
    {"title": "Alpha Film", "text": "Alpha Film is a drama directed by Boris Kowalski."},
    {"title": BRIDGE, "text": "Boris Kowalski was born in Gdansk. He wed Clara Weiss in Warsaw."},
] + [
    {
        "title": f"Film {n}",
        "text": f"Film {n} had a director who did marry. Who did the director of film {n} marry?",
    }
    for n in range(12)
]


def _graph_store(store: GraphStore, tmp_path: Path) -> GraphStore:
    corpus = tmp_path / "films.json"
    corpus.write_text(json.dumps(PASSAGES), encoding="utf-8")
    build(store, [corpus], scripted_llm(tmp_path / "cache.sqlite"), extract="llm")
    return store


def _titles(store: GraphStore, ids: list[str]) -> list[str]:
    rows = store.run_text(
        "UNWIND $ids AS id MATCH (c:Chunk {id: id})-[:PART_OF]->(d:Document) "
        "RETURN c.id AS id, d.title AS title",
        {"ids": ids},
    ).records()
    title = {r["id"]: r["title"] for r in rows}
    return [title[i] for i in ids]


def test_the_walk_reaches_the_next_hop_vector_search_misses(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    store = _graph_store(open_store(), tmp_path)
    query = Query(QUESTION, HashingEmbedder(HASH_SPEC).embed([QUESTION])[0])
    options = RetrieveOptions(per_list=5)
    vector = RETRIEVERS["chunk"].search(store, query, options)
    graph = RETRIEVERS["graph"].search(store, query, options)
    assert BRIDGE not in _titles(store, vector)  # the premise: vector top-5 misses it
    ranking = graph_ranking(store, query, per_list=5)  # the search the list above made
    walked = _titles(store, [c for c, _ in ranking.chunks])
    # the twelve distractors repeat the question word for word, and the walk seeds the
    # five passages full text ranks first too (which of the tied distractors is arbitrary):
    # only those rank above the bridge, whatever vector search puts near the question
    worded = set(_titles(store, text_chunks(store, query, 5)))  # the walk's search
    assert walked[0] == "Alpha Film" and set(walked[: walked.index(BRIDGE)]) <= worded
    assert _titles(store, graph) == walked[:5]
    assert ranking.nodes <= 200  # a bounded sub-graph, not the whole store
    assert any(seed.startswith("e:") for seed in ranking.seeds)


def test_the_walk_seeds_the_passages_the_full_text_index_ranks_first(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    """The chunks full text ranks first for the question's words are seeded (on LoCoMo's
    conversations the facts alone led the walk away from the passage); the search is
    made once for the walk and the full-text list."""
    store = _graph_store(open_store(), tmp_path)
    question = "Where did Boris Kowalski wed Clara Weiss?"
    query = Query(question, HashingEmbedder(HASH_SPEC).embed([question])[0])
    searches: list[str] = []
    search = store.fulltext_search

    def counted(label: str, text: str, k: int) -> list[TextHit]:
        searches.append(text)
        return search(label, text, k)

    store.fulltext_search = counted  # type: ignore[method-assign]
    worded = RETRIEVERS["text"].search(store, query, RetrieveOptions())
    seeded = graph_ranking(store, query)
    assert searches == [question]  # one search for both
    seeded_text = worded[: GraphOptions().text_passages]
    assert seeded_text and all(seeded.seeds.get(f"c:{c}", 0.0) > 0 for c in seeded_text)
    bare = graph_ranking(store, Query(question, query.vector), GraphOptions(text_passages=0))
    assert searches == [question]
    first = worded[0]
    order = [c for c, _ in seeded.chunks]
    assert order.index(first) <= [c for c, _ in bare.chunks].index(first)
    # a configured depth is shared too: the walk reads the list's own search
    again, narrow = Query(question, query.vector), RetrieveOptions(per_list=8)
    RETRIEVERS["text"].search(store, again, narrow)
    RETRIEVERS["graph"].search(store, again, narrow)
    assert searches == [question, question]


def test_a_chunk_only_store_has_no_graph_list_and_round_one_stays_vector(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    store = open_store()
    corpus = tmp_path / "films.json"
    corpus.write_text(json.dumps(PASSAGES), encoding="utf-8")
    build(store, [corpus], None, extract="none")
    query = Query(QUESTION, HashingEmbedder(HASH_SPEC).embed([QUESTION])[0])
    assert RETRIEVERS["graph"].search(store, query, RetrieveOptions()) == []
    nearest = RETRIEVERS["chunk"].search(store, query, RetrieveOptions())
    for first in ("vector", "graph", "fused"):
        assert first_round({VECTOR_CHUNK: nearest}, nearest, 3, first) == nearest[:3]  # type: ignore[arg-type]


def test_first_round_takes_the_graph_list_or_fuses_it_with_the_vector_list() -> None:
    lists = {VECTOR_CHUNK: ["a", "b", "c"], GRAPH_PPR: ["c", "d", "a"]}
    assert first_round(lists, ["a", "b", "c"], 2, "vector") == ["a", "b"]
    # the nearest chunk first (the walk ranked it third), then the walk
    assert first_round(lists, ["a", "b", "c"], 2, "graph") == ["a", "c"]
    assert first_round(lists, ["a", "b", "c"], 3, "graph") == ["a", "c", "d"]
    assert first_round(lists, ["d", "b", "c"], 3, "graph") == ["d", "c", "a"]  # 2nd: moved up
    assert first_round(lists, ["c", "b", "a"], 3, "graph") == ["c", "d", "a"]  # the walk's 1st
    assert first_round(lists, ["b", "a", "c"], 4, "graph") == ["b", "c", "d", "a"]  # not walked
    # a later round's walk is shown as walked
    assert first_round(lists, ["a", "b", "c"], 3, "graph", lead=False) == ["c", "d", "a"]
    # reciprocal rank: a (1st, 3rd) and c (3rd, 1st) tie ahead of b and d; ties by id
    assert first_round(lists, ["a", "b", "c"], 3, "fused") == ["a", "c", "b"]


def test_weighted_restart_follows_the_weights() -> None:
    graph = Projection(["x", "y", "z"], [("x", "y", 1.0), ("y", "z", 1.0)])
    near_x = weighted_personalized_pagerank(graph, {"x": 1.0, "z": 0.1}, damping=0.5)
    near_z = weighted_personalized_pagerank(graph, {"x": 0.1, "z": 1.0}, damping=0.5)
    assert near_x["x"] > near_x["z"] and near_z["z"] > near_z["x"]
    assert weighted_personalized_pagerank(graph, {"w": 1.0}) == {}


def test_weighted_restart_scores_are_igraphs() -> None:
    import igraph as ig

    nodes = [f"n{i}" for i in range(12)]
    edges = [(f"n{i}", f"n{(i * 5 + 3) % 12}", 1.0 + i % 3) for i in range(12)]
    edges.append(("n0", "n1", 2.0))  # n11 -> n2 and this pair: parallel edges are summed
    reset = {"n0": 1.0, "n7": 0.25}
    ours = weighted_personalized_pagerank(Projection(nodes, edges), reset, damping=0.5)
    graph = ig.Graph(n=12, edges=[(int(a[1:]), int(b[1:])) for a, b, _ in edges])
    graph.es["weight"] = [w for _, _, w in edges]
    theirs = graph.personalized_pagerank(
        reset=[reset.get(n, 0.0) for n in nodes], weights="weight", damping=0.5, directed=False
    )
    assert [ours[n] for n in nodes] == pytest.approx(theirs, abs=1e-9)


HUB = """
CREATE (h:Entity {id: 'hub', name: 'Hub'})
WITH h
UNWIND range(0, 11) AS n
MERGE (c:Chunk {id: 'c' + toString(n % 4)})
CREATE (t:Triplet {id: 't' + toString(n)})-[:SUBJECT]->(h)
CREATE (t)-[:MENTIONED_IN]->(c)
CREATE (t)-[:OBJECT]->(o:Entity {id: 'o' + toString(n), name: 'O' + toString(n)})
CREATE (h)-[:RELATED {weight: 1.0}]->(o)
"""


def test_the_walks_per_entity_reads_count_distinct_chunks_and_stop_at_their_bound(
    open_store: StoreFactory,
) -> None:
    """A hub stated by 12 triplets in 4 chunks: both stores count 4 chunks (not 12 paths)
    and read no more than the bound of chunks and neighbours."""
    store = open_store()
    store._execute(HUB, {}, write=True)  # a test-only graph
    counts = store.run("ask/graph_fact_entities", {"ids": ["t0"], "cap": 300})
    assert {r["entity"]: r["chunks"] for r in counts} == {"hub": 4, "o0": 1}
    capped = store.run("ask/graph_fact_entities", {"ids": ["t0"], "cap": 2})
    assert {r["entity"]: r["chunks"] for r in capped} == {"hub": 2, "o0": 1}
    (chunks,) = store.run("ask/graph_entity_chunks", {"ids": ["hub"], "per_entity": 30})
    assert chunks["entity"] == "hub" and sorted(chunks["chunks"]) == ["c0", "c1", "c2", "c3"]
    (capped,) = store.run("ask/graph_entity_chunks", {"ids": ["hub"], "per_entity": 3})
    assert len(capped["chunks"]) == 3
    edges = store.run("ask/graph_entity_edges", {"ids": ["hub"], "per_entity": 5})
    assert len(edges) == 5 and {r["source"] for r in edges} == {"hub"}
    assert all(r["weight"] == 1.0 for r in edges)


def test_a_passage_shows_its_typed_facts_not_its_co_occurrences(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    """A fact whose predicate is only connectives ("and", "related to") says no more than
    the passage beside it; the graph keeps it, the prompt does not show it."""
    store = open_store()
    corpus = tmp_path / "film.json"
    text = "Alpha Film is a drama directed by Boris Kowalski and Clara Weiss."
    corpus.write_text(json.dumps([{"title": "Alpha Film", "text": text}]), encoding="utf-8")
    build(store, [corpus], scripted_llm(tmp_path / "cache.sqlite"), extract="llm")
    stated = {
        r["predicate"]: r["text"]
        for r in store.run_text(
            "MATCH (t:Triplet) RETURN t.predicate AS predicate, t.text AS text"
        ).records()
    }
    assert set(stated) == {"is a drama directed", "and"}  # the premise: both kinds
    ids = [r["id"] for r in store.run_text("MATCH (c:Chunk) RETURN c.id AS id").records()]
    (candidate,) = candidates(store, [(ids[0], 1.0, [VECTOR_CHUNK])], max_triplets=6)
    assert candidate.triplets == [stated["is a drama directed"]]


@pytest.mark.parametrize("first", ["graph", "vector"])
def test_a_later_round_shows_the_follow_ups_walk_first_on_a_graph(
    open_store: StoreFactory, tmp_path: Path, first: str
) -> None:
    """A next hop's round: its fresh passages are the follow-up's walk (``[ask] first``),
    which holds the passage its nearest chunks miss; ``first = "vector"`` keeps them."""
    store = _graph_store(open_store(), tmp_path)
    # six: the five full-text seeds may all rank above the bridge (the test above)
    options = AskOptions(record=False, first=first, follow_up=6)  # type: ignore[arg-type]
    tools = Tools(store, HashingEmbedder(HASH_SPEC), scripted_llm(tmp_path / "c.sqlite"), options)
    state = start(tools, "Which drama is Alpha Film?")
    (bridge,) = [c for c in _passages(store) if c.title == BRIDGE]
    rejected = Judgement(verdicts=[Verdict(ref=1, verdict="rejected")])
    state.rounds.append(Round(1, [state.question], [bridge], rejected))  # shown, not cited
    state.asking = state.first = QUESTION  # the round after asks the hop
    found = retrieve(tools, state, next_queries(state))
    assert next_queries(state) == [state.question, QUESTION]
    assert len(found) == 6  # nothing carried: the follow-up's first 6
    shown = {c.title: c for c in found}
    assert (BRIDGE in shown) == (first == "graph")
    if first == "graph":  # shown again, under the list that found it
        assert GRAPH_PPR in shown[BRIDGE].sources


@pytest.mark.parametrize("own", [None, "vector"])
def test_a_question_may_show_its_nearest_passages_first_on_a_graph(
    open_store: StoreFactory, tmp_path: Path, own: str | None
) -> None:
    """A question that sets its own first list (a comparison's fact question, which the
    loop sets to "vector") shows the nearest passages in round 1, not the walk."""
    store = _graph_store(open_store(), tmp_path)
    options = AskOptions(record=False, k=6, extra=0)  # six: the walk's bridge may be sixth
    tools = Tools(store, HashingEmbedder(HASH_SPEC), scripted_llm(tmp_path / "c.sqlite"), options)
    state = start(tools, QUESTION)
    state.shows_first = own  # type: ignore[assignment]
    found = retrieve(tools, state, next_queries(state))
    query = Query(QUESTION, HashingEmbedder(HASH_SPEC).embed([QUESTION])[0])
    nearest = RETRIEVERS["chunk"].search(store, query, RetrieveOptions(per_list=6))
    assert ([c.id for c in found] == nearest) == (own == "vector")
    assert (BRIDGE in {c.title for c in found}) == (own is None)  # the walk's next hop


def test_an_explanation_of_one_thing_shows_its_nearest_passages_first_on_a_graph(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    """ "How ..." and "Why ..." of one thing read naive's passages in round 1 (the walk's
    neighbours distract a small reader); a chain of facts keeps the walk."""
    store = _graph_store(open_store(), tmp_path)
    options = AskOptions(record=False, k=6, extra=0)
    tools = Tools(store, HashingEmbedder(HASH_SPEC), scripted_llm(tmp_path / "c.sqlite"), options)
    asked = "How does the drama Alpha Film end?"
    state = start(tools, asked)
    assert state.shows_first == "vector" and start(tools, QUESTION).shows_first is None
    found = retrieve(tools, state, next_queries(state))
    query = Query(asked, HashingEmbedder(HASH_SPEC).embed([asked])[0])
    nearest = RETRIEVERS["chunk"].search(store, query, RetrieveOptions(per_list=6))
    assert [c.id for c in found] == nearest


def test_a_next_hops_passages_name_the_list_that_found_them(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    """With ``first = "vector"`` a next hop shows the bridge's passage by full text, then
    the follow-up's nearest chunks; each names its own list (the bridge's passage was
    labelled a vector hit, which RETRIEVED_VIA and the planner's counts then read)."""
    store = _graph_store(open_store(), tmp_path)
    options = AskOptions(record=False, first="vector", follow_up=3)
    tools = Tools(store, HashingEmbedder(HASH_SPEC), scripted_llm(tmp_path / "c.sqlite"), options)
    state = start(tools, QUESTION)
    state.rounds.append(Round(1, [QUESTION], [], Judgement(draft_answer=BRIDGE)))
    state.first, state.asking = QUESTION, f"Who did {BRIDGE} marry?"
    assert state.bridging
    (vector,) = tools.embedder.embed([state.asking])
    state.ranked[state.asking] = rank_lists(store, state.asking, vector, options.retrieve)
    ahead = follow_up_passages(tools, state, state.asking, vector, set())
    titles = {c.id: c.title for c in _passages(store)}
    assert (titles[ahead[0][0]], ahead[0][2]) == (BRIDGE, TEXT_CHUNK)
    assert {source for _, _, source in ahead[1:]} == {VECTOR_CHUNK}
    assert len({c for c, _, _ in ahead}) == len(ahead)  # the bridge's passage shown once


def _passages(store: GraphStore) -> list[Candidate]:
    ids = [r["id"] for r in store.run_text("MATCH (c:Chunk) RETURN c.id AS id").records()]
    return candidates(store, [(i, 0.0, []) for i in ids], 0)
