"""The reasoning graph: decisions written atomically, read back whole, rendered."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from rich.console import Console

from buildkit import CORPUS, build, dump
from conftest import StoreFactory
from graphmind.core.decision import (
    DECISION,
    Agent,
    Candidate,
    Citation,
    Decision,
    Judgement,
    Retrieval,
    Round,
    Stored,
    Sufficiency,
    Verdict,
)
from graphmind.core.errors import QueryFailedError, QueryParameterError
from graphmind.core.ids import digest
from graphmind.memory import list_decisions, read_decision, write_decision
from graphmind.memory.decisions import agent_id, step_id
from graphmind.memory.render import (
    SNIPPET_CHARS,
    decision_as_dict,
    print_trace,
    render_trace,
    shorten,
)
from graphmind.store.base import GraphStore

MODEL = "qwen2.5-coder-0.5b"
PROMPT = "ask-v1"


@dataclass
class Chunk:
    id: str
    title: str
    text: str


@pytest.fixture
def store(open_store: StoreFactory) -> GraphStore:
    """A store holding the fixture corpus, chunk-only (no LLM)."""
    s = open_store()
    build(s, [CORPUS], None, extract="none")
    return s


@pytest.fixture
def chunks(store: GraphStore) -> list[Chunk]:
    rows = store.run_text(
        "MATCH (c:Chunk)-[:PART_OF]->(d:Document) "
        "RETURN c.id AS id, d.title AS title, c.text AS text ORDER BY c.id"
    ).records()
    assert len(rows) >= 4
    return [Chunk(r["id"], r["title"], r["text"]) for r in rows]


def candidate(chunk: Chunk, score: float, *sources: str) -> Candidate:
    return Candidate(chunk.id, chunk.text, chunk.title, score, list(sources))


def two_rounds(chunks: list[Chunk], decision_id: str = "dec-1", created_at: int = 1000) -> Decision:
    """Round 1: three candidates, two judged; round 2: two candidates, one seen in round 1."""
    a, b, c, d = chunks[:4]
    round1 = Round(
        number=1,
        queries=["Where was Marie Curie born?"],
        candidates=[
            candidate(a, 0.91, "vector:chunk", "fulltext"),
            candidate(b, 0.52, "vector:chunk"),
            candidate(c, 0.40, "ppr"),
        ],
        judgement=Judgement(
            verdicts=[
                Verdict(
                    ref=1, verdict="used", reason="names [the] birthplace", confidence_delta=0.4
                ),
                Verdict(
                    ref=3, verdict="rejected", reason="about another person", confidence_delta=-0.1
                ),
                Verdict(ref=1, verdict="rejected", reason="a repeated verdict is ignored"),
                Verdict(ref=9, verdict="used", reason="no such candidate"),
            ],
            draft_answer="Warsaw",
            sufficiency=Sufficiency.PARTIAL,
            confidence=0.5,
            missing="the year of birth",
            probes=["Marie Curie birth year"],
            cue="the birthplace is Warsaw",
        ),
        expanded=[c.id],
        extracted=2,
        store_ms=12.5,
        llm_ms=800.0,
        tokens=640,
    )
    round2 = Round(
        number=2,
        queries=["Where was Marie Curie born?", "Marie Curie birth year"],
        candidates=[candidate(c, 0.77, "vector:chunk", "expand"), candidate(d, 0.33, "fulltext")],
        judgement=Judgement(
            verdicts=[Verdict(ref=1, verdict="used", reason="now relevant", confidence_delta=0.3)],
            draft_answer="Warsaw, 1867",
            sufficiency=Sufficiency.EXACT,
            confidence=0.9,
            missing="",
            cue="born in Warsaw in 1867",
        ),
        store_ms=8.0,
        llm_ms=650.0,
        tokens=512,
    )
    return Decision(
        id=decision_id,
        question="Where and when was Marie Curie born?",
        answer="Warsaw, in 1867",
        abstained=False,
        sufficiency=Sufficiency.EXACT,
        confidence=0.9,
        mode="iterative",
        rounds=[round1, round2],
        citations=[Citation(a.id, a.title, a.text), Citation(c.id, c.title, c.text)],
        cues=["the birthplace is Warsaw", "born in Warsaw in 1867"],
        temporal=True,
        tokens=1152,
        latency_ms=1500.0,
        store_ms=20.5,
        llm_ms=1450.0,
        model=MODEL,
        created_at=created_at,
        retrieval=Retrieval(
            memory="full",
            query_type="type-1",
            query_type_new=decision_id == "dec-1",
            query_vector=[1.0, 0.0, 0.0] if decision_id == "dec-1" else [0.0, 1.0, 0.0],
            config="narrow",
            filters="config=narrow; k=10",
            excluded=[b.id],
            candidates_pre=7,
            candidates_post=4,
            judged=5,
            profiled=2,
            latency_ms=12.0,
        ),
    )


def records(store: GraphStore, query: str, **params: Any) -> list[dict[str, Any]]:
    return store.run_text(query, params).records()


def snapshot(store: GraphStore) -> tuple[dict[str, int], int, dict[str, list[tuple[str, ...]]]]:
    return store.counts(), store.relationship_count(), dump(store)


def test_write_then_read_back_every_field(store: GraphStore, chunks: list[Chunk]) -> None:
    decision = two_rounds(chunks)
    write_decision(store, decision, agent_model=MODEL, prompt_version=PROMPT)
    trace = read_decision(store, "dec-1")
    assert trace is not None
    a, b, c, d = chunks[:4]
    assert (trace.id, trace.question, trace.answer) == (
        "dec-1",
        decision.question,
        decision.answer,
    )
    assert trace.abstained is False and trace.temporal is True
    assert (trace.sufficiency, trace.confidence, len(trace.rounds)) == ("EXACT", 0.9, 2)
    rv = trace.retrieval
    assert (trace.outcome, trace.mode, trace.model, rv.query_type, rv.memory) == (
        "pending",
        "iterative",
        MODEL,
        "type-1",
        "full",
    )
    assert (rv.config, rv.filters, rv.excluded, rv.explored) == (
        "narrow",
        "config=narrow; k=10",
        [b.id],
        False,
    )
    assert (rv.candidates_pre, rv.candidates_post, rv.judged, rv.profiled) == (7, 4, 5, 2)
    assert trace.stored is not None
    assert (rv.latency_ms, rv.query_type, trace.stored.query_type_size) == (12.0, "type-1", 1)
    # the edge's own properties: the token cost and the used evidence, in the order first judged
    via = records(
        store,
        "MATCH (:Decision {id: $id})-[r:RETRIEVED_VIA]->() "
        "RETURN r.token_cost AS cost, r.top_relevant AS top",
        id="dec-1",
    )
    assert via == [{"cost": 1152, "top": [a.id, c.id]}]
    assert (trace.tokens, trace.latency_ms, trace.store_ms, trace.llm_ms) == (
        1152,
        1500.0,
        20.5,
        1450.0,
    )
    assert trace.created_at == 1000 and trace.cues == decision.cues
    agent = trace.stored.agent
    assert agent is not None
    assert (agent.id, agent.model, agent.prompt_version) == (
        agent_id(MODEL, PROMPT),
        MODEL,
        PROMPT,
    )
    decided = records(
        store,
        "MATCH (:Agent)-[r:DECIDED]->(:Decision {id: $id}) "
        "RETURN r.confidence AS confidence, r.timestamp AS timestamp, r.outcome AS outcome",
        id="dec-1",
    )
    assert decided == [{"confidence": 0.9, "timestamp": 1000, "outcome": "pending"}]

    one, two = trace.rounds
    steps = records(
        store,
        "MATCH (:Decision {id: $id})-[:HAS_STEP]->(s:Step) "
        "RETURN s.id AS id, s.round AS round, s.sub_query AS sub_query ORDER BY round",
        id="dec-1",
    )
    assert steps == [
        {"id": step_id("dec-1", 1), "round": 1, "sub_query": "Where was Marie Curie born?"},
        {
            "id": step_id("dec-1", 2),
            "round": 2,
            "sub_query": "Where was Marie Curie born? | Marie Curie birth year",
        },
    ]
    assert (one.number, two.number) == (1, 2)
    assert one.queries == ["Where was Marie Curie born?"]
    j1, j2 = one.judgement, two.judgement
    assert (j1.draft_answer, j1.sufficiency, j1.confidence) == ("Warsaw", "PARTIAL", 0.5)
    assert (j1.missing, j1.cue, j1.probes) == (
        "the year of birth",
        "the birthplace is Warsaw",
        ["Marie Curie birth year"],
    )
    assert (one.expanded, one.extracted, one.store_ms, one.llm_ms, one.tokens) == (
        [c.id],
        2,
        12.5,
        800.0,
        640,
    )
    assert (j2.draft_answer, j2.sufficiency, j2.confidence, j2.missing) == (
        "Warsaw, 1867",
        "EXACT",
        0.9,
        "",
    )
    assert (j2.probes, two.expanded, two.extracted, two.tokens) == ([], [], 0, 512)

    def verdict(rnd: Round, chunk_id: str) -> tuple[str | None, str, float | None]:
        v = rnd.verdict_of(chunk_id)
        return (None, "", None) if v is None else (v.verdict, v.reason, v.confidence_delta)

    got1 = [
        (x.id, x.title, x.text, x.score, x.sources, *verdict(one, x.id)) for x in one.candidates
    ]
    assert got1 == [
        (
            a.id,
            a.title,
            a.text,
            0.91,
            ["vector:chunk", "fulltext"],
            "used",
            "names [the] birthplace",
            0.4,
        ),
        (b.id, b.title, b.text, 0.52, ["vector:chunk"], None, "", None),
        (c.id, c.title, c.text, 0.40, ["ppr"], "rejected", "about another person", -0.1),
    ]
    got2 = [(x.id, *verdict(two, x.id)) for x in two.candidates]
    assert got2 == [(c.id, "used", "now relevant", 0.3), (d.id, None, "", None)]
    assert two.candidates[0].sources == ["vector:chunk", "expand"]

    assert [(x.chunk_id, x.title, x.text) for x in trace.citations] == [
        (a.id, a.title, a.text),
        (c.id, c.title, c.text),
    ]
    as_json = json.loads(json.dumps(decision_as_dict(trace)))
    assert as_json["rounds"][1]["candidates"][0] == {
        "id": c.id,
        "title": c.title,
        "text": c.text,
        "score": 0.77,
        "sources": ["vector:chunk", "expand"],
        "triplets": [],
        "communities": [],
        "event_times": [],
        "profile": "",
    }
    assert as_json["rounds"][1]["judgement"]["verdicts"][0] == {
        "ref": 1,
        "verdict": "used",
        "reason": "now relevant",
        "confidence_delta": 0.3,
    }


def test_a_decision_round_trips_through_the_graph(store: GraphStore, chunks: list[Chunk]) -> None:
    """What the writer stores, the reader validates back into an equal model: every field
    but the loop's working data that ``core.decision`` marks as not stored."""
    decision = two_rounds(chunks)
    # one verdict per candidate, in candidate order: what one RETRIEVED edge holds
    decision.rounds[0].judgement.verdicts = [
        Verdict(ref=1, verdict="used", reason="names [the] birthplace", confidence_delta=0.4),
        Verdict(ref=3, verdict="rejected", reason="about another person", confidence_delta=-0.1),
    ]
    decision.retrieval.query_vector = [1.0, 0.0, 0.0]
    write_decision(store, decision, agent_model=MODEL, prompt_version=PROMPT)
    back = read_decision(store, decision.id)
    assert back is not None
    decision.retrieval.query_vector, decision.retrieval.query_type_new = [], False  # not stored
    assert back == decision
    assert DECISION.validate_python(DECISION.dump_python(back)) == back
    assert back.stored == Stored(
        Agent(agent_id(MODEL, PROMPT), MODEL, PROMPT), decision.question, 1
    )
    # a decision without a query type (memory off) round-trips too
    plain = two_rounds(chunks, "dec-plain", 2000)
    plain.rounds[0].judgement.verdicts = decision.rounds[0].judgement.verdicts
    plain.retrieval = Retrieval()
    write_decision(store, plain, agent_model=MODEL, prompt_version=PROMPT)
    assert read_decision(store, plain.id) == plain


def test_graph_shape(store: GraphStore, chunks: list[Chunk]) -> None:
    write_decision(store, two_rounds(chunks), agent_model=MODEL, prompt_version=PROMPT)
    a, b, c, d = chunks[:4]
    # exactly one EVALUATED edge per judged evidence item, with its final verdict: c was
    # rejected in round 1 and used in round 2, so "used" (step 2) is what the edge keeps
    evaluated = records(
        store,
        "MATCH (:Decision {id: $id})-[e:EVALUATED]->(c:Chunk) "
        "RETURN c.id AS chunk, e.step AS step, e.verdict AS verdict, count(e) AS n "
        "ORDER BY step, chunk",
        id="dec-1",
    )
    assert sorted((r["step"], r["chunk"], r["verdict"], r["n"]) for r in evaluated) == sorted(
        [(1, a.id, "used", 1), (2, c.id, "used", 1)]
    )
    assert records(store, "MATCH ()-[e:EVALUATED]->() RETURN count(e) AS n") == [{"n": 2}]
    # RETRIEVED edges per step, with rank, score, sources and that round's verdict
    retrieved = records(
        store,
        "MATCH (:Decision {id: $id})-[:HAS_STEP]->(s:Step)-[r:RETRIEVED]->(c:Chunk) "
        "RETURN s.round AS round, c.id AS chunk, r.rank AS rank, r.score AS score, "
        "r.sources AS sources, r.verdict AS verdict ORDER BY round, rank",
        id="dec-1",
    )
    assert [(r["round"], r["chunk"], r["rank"], r["verdict"]) for r in retrieved] == [
        (1, a.id, 1, "used"),
        (1, b.id, 2, None),
        (1, c.id, 3, "rejected"),
        (2, c.id, 1, "used"),
        (2, d.id, 2, None),
    ]
    assert retrieved[0]["score"] == 0.91 and retrieved[0]["sources"] == ["vector:chunk", "fulltext"]
    assert records(store, "MATCH (:Decision)-[h:HAS_STEP]->(:Step) RETURN count(h) AS n") == [
        {"n": 2}
    ]
    # the decision node's own properties
    props = records(store, "MATCH (d:Decision {id: $id}) RETURN properties(d) AS p", id="dec-1")
    p = props[0]["p"]
    assert p["citations"] == [a.id, c.id] and p["rounds"] == 2 and p["outcome"] == "pending"
    assert p["query_type"] == "type-1" and p["abstained"] is False and p["created_at"] == 1000
    # the retrieval graph: Query, RETRIEVED_VIA and OF_TYPE to a new QueryType
    via = records(
        store,
        "MATCH (:Decision {id: $id})-[r:RETRIEVED_VIA]->(q:Query)-[:OF_TYPE]->(t:QueryType) "
        "RETURN q.text AS text, q.queries AS queries, t.id AS type, t.count AS n, "
        "t.centroid AS centroid, r.timestamp AS at",
        id="dec-1",
    )
    assert via == [
        {
            "text": "Where and when was Marie Curie born?",
            "queries": ["Where was Marie Curie born?", "Marie Curie birth year"],
            "type": "type-1",
            "n": 1,
            "centroid": [1.0, 0.0, 0.0],
            "at": 1000,
        }
    ]
    # Agent and DECIDED; the agent is shared by the next decision of the same model and prompt
    write_decision(
        store, two_rounds(chunks, "dec-2", 2000), agent_model=MODEL, prompt_version=PROMPT
    )
    agents = records(
        store,
        "MATCH (a:Agent)-[r:DECIDED]->(d:Decision) RETURN a.id AS id, a.model AS model, "
        "a.prompt_version AS prompt, d.id AS decision, r.confidence AS confidence, "
        "r.timestamp AS timestamp, r.outcome AS outcome ORDER BY decision",
    )
    assert agents == [
        {
            "id": digest("agent", MODEL, PROMPT),
            "model": MODEL,
            "prompt": PROMPT,
            "decision": f"dec-{i}",
            "confidence": 0.9,
            "timestamp": 1000 * i,
            "outcome": "pending",
        }
        for i in (1, 2)
    ]
    assert store.counts()["Agent"] == 1
    # the second decision of the type moved its centroid halfway toward its question
    centroid = records(store, "MATCH (t:QueryType) RETURN t.centroid AS c, t.count AS n")
    assert centroid == [{"c": [0.5, 0.5, 0.0], "n": 2}]
    write_decision(
        store, two_rounds(chunks, "dec-3", 3000), agent_model=MODEL, prompt_version="ask-v2"
    )
    assert store.counts()["Agent"] == 2
    # CITED, in the answer's order
    cited = records(
        store,
        "MATCH (:Decision {id: $id})-[r:CITED]->(c:Chunk) RETURN c.id AS chunk, r.rank AS rank "
        "ORDER BY rank",
        id="dec-1",
    )
    assert cited == [{"chunk": a.id, "rank": 1}, {"chunk": c.id, "rank": 2}]
    assert store.counts()["Decision"] == 3 and store.counts()["Step"] == 6


def test_candidates_whose_chunk_is_gone_are_skipped(store: GraphStore, chunks: list[Chunk]) -> None:
    decision = two_rounds(chunks)
    gone = Chunk("no-such-chunk", "Lost", "deleted text")
    decision.rounds[1].candidates.append(candidate(gone, 0.2, "vector:chunk"))
    decision.rounds[1].judgement.verdicts.append(
        Verdict(ref=3, verdict="rejected", reason="gone anyway")
    )
    decision.citations.append(Citation(gone.id, gone.title, gone.text))
    write_decision(store, decision, agent_model=MODEL, prompt_version=PROMPT)
    trace = read_decision(store, decision.id)
    assert trace is not None
    assert [x.id for x in trace.rounds[1].candidates] == [chunks[2].id, chunks[3].id]
    assert records(store, "MATCH ()-[e:EVALUATED]->() RETURN count(e) AS n") == [{"n": 2}]
    assert records(store, "MATCH ()-[e:CITED]->() RETURN count(e) AS n") == [{"n": 2}]
    # the decision still records the citation; the trace shows it without a document
    assert (trace.citations[2].chunk_id, trace.citations[2].title) == (gone.id, "")
    assert trace.rounds[1].verdict_of(gone.id) is None


def test_unknown_decision_and_empty_rounds(store: GraphStore, chunks: list[Chunk]) -> None:
    assert read_decision(store, "nope") is None
    abstained = Decision(
        id="dec-empty",
        question="What is the airspeed of an unladen swallow?",
        answer="",
        abstained=True,
        sufficiency=Sufficiency.NONE,
        confidence=0.0,
        mode="iterative",
        rounds=[
            Round(number=1, queries=["swallow airspeed"], candidates=[], judgement=Judgement())
        ],
        citations=[],
        cues=[],
        temporal=False,
        tokens=10,
        latency_ms=5.0,
        store_ms=1.0,
        llm_ms=4.0,
        model=MODEL,
        created_at=5,
    )
    write_decision(store, abstained, agent_model=MODEL, prompt_version=PROMPT)
    trace = read_decision(store, "dec-empty")
    assert trace is not None
    assert trace.abstained is True and trace.citations == [] and trace.cues == []
    assert len(trace.rounds) == 1 and trace.rounds[0].candidates == []
    assert trace.rounds[0].judgement.sufficiency == "NONE"
    assert trace.rounds[0].queries == ["swallow airspeed"]
    text = _render(trace)
    assert "no candidates retrieved" in text and "abstained" in text


def test_list_decisions_most_recent_first(store: GraphStore, chunks: list[Chunk]) -> None:
    assert list_decisions(store) == []
    for name, created in (("old", 1000), ("newest", 3000), ("middle", 2000)):
        write_decision(
            store, two_rounds(chunks, name, created), agent_model=MODEL, prompt_version=PROMPT
        )
    listed = list_decisions(store)
    assert [r["id"] for r in listed] == ["newest", "middle", "old"]
    assert listed[0] == {
        "id": "newest",
        "question": "Where and when was Marie Curie born?",
        "answer": "Warsaw, in 1867",
        "sufficiency": "EXACT",
        "outcome": "pending",
        "created_at": 3000,
    }
    assert [r["id"] for r in list_decisions(store, limit=2)] == ["newest", "middle"]


def test_a_write_the_store_rejects_leaves_nothing(store: GraphStore, chunks: list[Chunk]) -> None:
    write_decision(store, two_rounds(chunks), agent_model=MODEL, prompt_version=PROMPT)
    before = snapshot(store)
    # Two rounds with one number: the second step's id repeats the first's, so the store's
    # uniqueness constraint fails the query after the decision, its agent, its first step
    # and their edges were created in it.
    repeated = two_rounds(chunks, "dec-bad", 2000)
    repeated.rounds[1].number = 1
    with pytest.raises(QueryFailedError):
        write_decision(store, repeated, agent_model=MODEL, prompt_version="another-prompt")
    assert snapshot(store) == before  # the query type's centroid and count included
    assert read_decision(store, "dec-bad") is None
    # The same decision id again: rejected by the store, the first write intact.
    with pytest.raises(QueryFailedError):
        write_decision(store, two_rounds(chunks), agent_model=MODEL, prompt_version="p2")
    assert snapshot(store) == before


def test_a_value_the_store_cannot_hold_sends_nothing(
    store: GraphStore, chunks: list[Chunk]
) -> None:
    before = snapshot(store)
    broken = two_rounds(chunks)
    broken.rounds[1].store_ms = float("nan")
    with pytest.raises(QueryParameterError, match="not a finite number"):
        write_decision(store, broken, agent_model=MODEL, prompt_version=PROMPT)
    assert snapshot(store) == before
    assert list_decisions(store) == []


def test_render_trace(store: GraphStore, chunks: list[Chunk]) -> None:
    write_decision(store, two_rounds(chunks), agent_model=MODEL, prompt_version=PROMPT)
    trace = read_decision(store, "dec-1")
    assert trace is not None
    assert len(render_trace(trace)) == 4  # header, two rounds, citations
    text = _render(trace)
    for expected in (
        "Where and when was Marie Curie born?",
        "Warsaw, in 1867",
        "dec-1",
        "Round 1",
        "Round 2",
        "used",
        "rejected",
        "names [the] birthplace",  # brackets are text, not console markup
        "about another person",
        "now relevant",
        "+0.40",
        "-0.10",
        "the year of birth",
        "born in Warsaw in 1867",
        "PARTIAL",
        "EXACT",
        "pending",
        "Citations",
        chunks[0].title,
    ):
        assert expected in text, expected


def test_shorten() -> None:
    assert shorten("a  b\n c") == "a b c"
    long = "word " * 200
    cut = shorten(long)
    assert len(cut) <= SNIPPET_CHARS and cut.endswith("…")


def _render(trace: Any) -> str:
    console = Console(record=True, width=200, color_system=None)
    print_trace(trace, console)
    return console.export_text()
