"""``--extract fast``: spaCy extraction with the real English pipeline, built into both
stores, found by the graph retrievers; a missing pipeline package is one clear error."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path
from typing import Any

import pytest

from buildkit import HASH_SPEC, build, entity_names
from conftest import StoreFactory
from graphmind.ask.retrievers import RETRIEVERS, Query, RetrieveOptions
from graphmind.communities.pipeline import CommunityOptions
from graphmind.core.errors import ConfigError
from graphmind.core.recipes import PPR, TRIPLET
from graphmind.embed import parse_embedder
from graphmind.embed.base import unit_mean
from graphmind.embed.hashing import HashingEmbedder
from graphmind.embed.onnx_provider import OnnxEmbedder
from graphmind.extract.extractor import ChunkText
from graphmind.extract.fast import DEFAULT_MODEL, FastExtractor, topic_name
from graphmind.extract.heuristic import heuristic_response
from graphmind.extract.normalize import triplet_id
from graphmind.ingest.build import FAST_COMMUNITIES, run_build
from graphmind.ingest.embedding import NAME_WEIGHT
from graphmind.ingest.options import BuildOptions, BuildReport, FactVectors
from graphmind.ingest.pipeline import BuildPipeline
from graphmind.llm.client import LLM
from graphmind.llm.scripted import ScriptedProvider
from graphmind.store.base import GraphStore

needs_model = pytest.mark.skipif(
    importlib.util.find_spec("spacy") is None or importlib.util.find_spec(DEFAULT_MODEL) is None,
    reason=f"spaCy and {DEFAULT_MODEL} are not installed (scripts/setup.sh installs them)",
)
PASSAGES = [
    {
        "title": "Lise Meitner",
        "text": "Lise Meitner was an Austrian physicist. She was born in Vienna in 1878. "
        "She worked with Otto Hahn in Berlin.",
    },
    {
        "title": "Otto Hahn",
        "text": "Otto Hahn was a German chemist. He was born in Frankfurt. "
        "He discovered nuclear fission with Fritz Strassmann in 1938.",
    },
    {
        "title": "Zombie Hunter (film)",
        "text": "Zombie Hunter is a 2013 film directed by Kevin King. "
        "It was released in the United States.",
    },
]
MODE = f"fast:{DEFAULT_MODEL}-3.8.0"


@pytest.fixture
def passages(tmp_path: Path) -> Path:
    path = tmp_path / "passages.json"
    path.write_text(json.dumps(PASSAGES), encoding="utf-8")
    return path


def triplets(store: GraphStore) -> set[tuple[str, str, str]]:
    rows = store.run_text(
        "MATCH (s:Entity)<-[:SUBJECT]-(t:Triplet)-[:OBJECT]->(o:Entity) "
        "RETURN s.name AS s, t.predicate AS p, o.name AS o"
    ).records()
    return {(r["s"], r["p"], r["o"]) for r in rows}


def cosine(a: list[float], b: list[float]) -> float:
    return math.fsum(x * y for x, y in zip(a, b, strict=True))


def test_topic_name_drops_the_disambiguation_and_file_names() -> None:
    assert topic_name("Dmitri Varfolomeyev (footballer, born 1978)") == "Dmitri Varfolomeyev"
    assert topic_name("Lise Meitner") == "Lise Meitner"
    assert topic_name("curie") is None and topic_name("") is None


@needs_model
def test_pronoun_subjects_stand_for_the_title() -> None:
    fast = FastExtractor()
    assert fast.model_id == f"{DEFAULT_MODEL}-3.8.0"
    chunks = [
        ChunkText("a", "Lise Meitner", "He was born in Paris. Lise Meitner studied physics."),
        ChunkText("b", "", "The the the."),
    ]
    first, second = fast.extract_chunks(chunks)
    assert first.status == "ok" and first.extraction is not None
    facts = {(r.subject, r.predicate, r.object) for r in first.extraction.relations}
    assert ("Lise Meitner", "born in", "Paris") in facts
    types = {e.name: e.type for e in first.extraction.entities}
    assert types["Paris"] == "gpe" and types["Lise Meitner"] == "person"
    assert second.status == "empty"


@needs_model
def test_fast_build_writes_the_llm_extractors_graph(
    open_store: StoreFactory, passages: Path
) -> None:
    store = open_store()
    store.ensure_schema(HASH_SPEC)
    embedder = HashingEmbedder(HASH_SPEC)
    options = BuildOptions(extract="fast")
    report = run_build(store, embedder, None, [str(passages)], options, CommunityOptions())
    assert report.documents_new == 3 and report.chunks_failed == report.chunks_empty == 0
    assert report.sentence_vectors == 0  # the hashed embedder reads no spans: texts only
    assert {"Lise Meitner", "Vienna", "Otto Hahn", "Berlin", "Frankfurt", "Kevin King"} <= (
        entity_names(store)
    )
    facts = triplets(store)
    assert ("Lise Meitner", "born in", "Vienna") in facts
    assert ("Otto Hahn", "born in", "Frankfurt") in facts
    assert ("Zombie Hunter", "directed by", "Kevin King") in facts
    modes = store.run_text("MATCH (d:Document) RETURN DISTINCT d.extract_mode AS m").records()
    assert modes == [{"m": MODE}]
    related = store.run_text(
        "MATCH (:Entity {name: 'Lise Meitner'})-[r:RELATED]->(:Entity {name: 'Vienna'}) "
        "RETURN r.predicate AS p"
    ).records()
    assert related == [{"p": "born in"}]
    assert report.communities["levels"] and any(n.source == "communities" for n in report.notes)
    assert FAST_COMMUNITIES in [n.reason for n in report.notes]

    def top(name: str, text: str) -> str:
        query = Query(text, embedder.embed([text])[0])
        ranking = RETRIEVERS[name].search(store, query, RetrieveOptions())
        assert ranking, name
        row = store.run_text(
            "MATCH (c:Chunk {id: $id})-[:PART_OF]->(d:Document) RETURN d.title AS t",
            {"id": ranking[0]},
        ).records()
        return str(row[0]["t"])

    assert top(TRIPLET, "Lise Meitner born in Vienna") == "Lise Meitner"
    assert top(TRIPLET, "Zombie Hunter directed by Kevin King") == "Zombie Hunter (film)"
    assert top(PPR, "Kevin King") == "Zombie Hunter (film)"


@needs_model
@pytest.mark.parametrize("in_process", [True, False])
def test_auto_extraction_is_spacy_beside_an_offline_model_and_the_llm_at_an_endpoint(
    open_store: StoreFactory, passages: Path, in_process: bool
) -> None:
    store = open_store()
    store.ensure_schema(HASH_SPEC)
    provider = ScriptedProvider(heuristic_response, in_process=in_process)
    llm = LLM(provider, cache=None)
    options = BuildOptions()  # extract="auto"
    report = run_build(
        store, HashingEmbedder(HASH_SPEC), llm, [str(passages)], options, CommunityOptions()
    )
    assert report.documents_new == 3 and report.communities["levels"]
    if in_process:  # built as --extract fast: no extraction call, no summary call
        assert report.extraction == MODE and provider.calls == 0
        assert FAST_COMMUNITIES in [n.reason for n in report.notes]
        assert ("Lise Meitner", "born in", "Vienna") in triplets(store)
    else:  # an endpoint extracts and summarises
        assert report.extraction == "llm:scripted" and provider.calls > 3
        assert FAST_COMMUNITIES not in [n.reason for n in report.notes] and triplets(store)


@needs_model
def test_a_chunk_only_store_is_rebuilt_by_a_fast_build(
    open_store: StoreFactory, passages: Path
) -> None:
    store = open_store()
    assert build(store, [passages], None, extract="none").documents_new == 3
    assert store.counts()["Triplet"] == 0
    upgraded = build(store, [passages], None, extract="fast")
    assert upgraded.documents_changed == 3 and upgraded.documents_skipped == 0
    facts = triplets(store)
    assert ("Lise Meitner", "born in", "Vienna") in facts
    again = build(store, [passages], None, extract="fast")
    assert again.documents_skipped == 3 and again.documents_written == 0
    kept = build(store, [passages], None, extract="none")  # chunk-only keeps what it has
    assert kept.documents_skipped == 3 and triplets(store) == facts


def test_a_missing_pipeline_package_is_one_clear_error(open_store: StoreFactory) -> None:
    store = open_store()
    options = BuildOptions(extract="fast", fast_model="graphmind_no_such_pipeline")
    with pytest.raises(ConfigError) as caught:
        BuildPipeline(store, HashingEmbedder(HASH_SPEC), None, options)
    message = str(caught.value)
    assert "graphmind_no_such_pipeline" in message and "not installed" in message
    assert "scripts/setup.sh" in message and "\n" not in message
    with pytest.raises(ConfigError, match="not a Python package name"):
        BuildPipeline(
            store, HashingEmbedder(HASH_SPEC), None, BuildOptions(extract="fast", fast_model="a/b")
        )


def test_progress_hears_how_many_chunks_are_parsed_so_far() -> None:
    chunks = [ChunkText(f"c{i}", "Lise Meitner", "She was born in Vienna.") for i in range(3)]
    heard: list[int] = []
    FastExtractor().extract_chunks(chunks, on_done=heard.append)
    assert heard == [1, 2, 3]  # the count so far, as the LLM path reports it (core.progress)


@needs_model
def test_a_weak_fact_carries_its_sentence_as_written() -> None:
    text = (
        "Tom Copping( born 1977) is a painter. He was born in Leeds. "
        "His studio is in Ulm, Germany, near the Danube."
    )
    (result,) = FastExtractor().extract_chunks([ChunkText("a", "Tom Copping", text)])
    assert result.extraction is not None
    facts = {
        triplet_id(r.subject, r.predicate, r.object): (r.subject, r.predicate, r.object)
        for r in result.extraction.relations
    }
    born = triplet_id("Tom Copping", "born in", "Leeds")
    assert born in facts and born not in result.contexts  # a verb's fact is embedded as text
    weak = {facts[key]: sentence for key, sentence in result.contexts.items()}
    assert weak and set(weak.values()) <= {
        "Tom Copping( born 1977) is a painter.",
        "His studio is in Ulm, Germany, near the Danube.",
    }  # the chunk's own text, glued parenthesis and all
    assert weak.get(("Ulm", "related to", "Germany")) == (
        "His studio is in Ulm, Germany, near the Danube."
    )


OnnxStore = tuple[GraphStore, OnnxEmbedder]


@pytest.fixture
def onnx_store(open_store: StoreFactory) -> OnnxStore:
    """A store with the schema of the ONNX embedder, and that embedder."""
    store = open_store()
    spec = parse_embedder("onnx:all-MiniLM-L6-v2")
    store.ensure_schema(spec)
    return store, OnnxEmbedder(spec)


@needs_model
def test_a_weak_facts_vector_is_read_from_its_chunks_pass(
    onnx_store: OnnxStore, passages: Path
) -> None:
    store, embedder = onnx_store

    def built(fact_vectors: FactVectors) -> tuple[BuildReport, dict[tuple[str, str], Any]]:
        options = BuildOptions(extract="fast", communities=False, fact_vectors=fact_vectors)
        report = BuildPipeline(store, embedder, None, options).run([str(passages)])
        rows = store.run_text(
            "MATCH (s:Entity)<-[:SUBJECT]-(t:Triplet)-[:OBJECT]->(o:Entity) "
            "RETURN s.name AS s, o.name AS o, t.embedding AS v"
        ).records()
        return report, {(r["s"], r["o"]): list(r["v"]) for r in rows}

    report, vectors = built("sentence")
    sentence = "She worked with Otto Hahn in Berlin."
    (chunk,) = store.run_text(  # the chunk as embedded: its title line, then the passage
        "MATCH (c:Chunk)-[:PART_OF]->(:Document {title: 'Lise Meitner'}) RETURN c.text AS t"
    ).records()
    text = str(chunk["t"])
    assert text.endswith(sentence)
    _, (read,) = embedder.embed_spans([text], [[(text.index(sentence), len(text))]])
    assert read[0] is not None
    names = {
        str(r["n"]): list(r["v"])
        for r in store.run_text(
            "MATCH (e:Entity) WHERE e.name IN ['Otto Hahn', 'Berlin'] "
            "RETURN e.name AS n, e.embedding AS v"
        ).records()
    }
    joined = unit_mean([names["Otto Hahn"], names["Berlin"]])
    assert joined is not None
    expected = unit_mean([read[0], joined], [1.0, NAME_WEIGHT])
    assert expected is not None
    weak = vectors[("Otto Hahn", "Berlin")]  # "Otto Hahn in Berlin": no verb between
    assert cosine(weak, expected) > 0.9999  # the sentence, and which two names it joins
    assert cosine(weak, read[0]) < 0.99
    assert report.sentence_vectors > 0
    strong = vectors[("Zombie Hunter", "Kevin King")]  # "directed by": its own text
    (own,) = embedder.embed(["Zombie Hunter directed by Kevin King"])
    assert cosine(strong, own) > 0.9999

    store.wipe()
    store.ensure_schema(embedder.spec)
    texts, by_text = built("text")  # each fact embedded on its own, one pass more for each
    assert texts.sentence_vectors == 0
    assert texts.embedded_texts == report.embedded_texts + report.sentence_vectors
    (alone,) = embedder.embed(["Otto Hahn in Berlin"])
    assert cosine(by_text[("Otto Hahn", "Berlin")], alone) > 0.9999
    assert by_text.keys() == vectors.keys()


@needs_model
def test_a_weak_fact_beyond_what_the_model_reads_is_embedded_as_its_text(
    onnx_store: OnnxStore, tmp_path: Path
) -> None:
    store, embedder = onnx_store
    filler = "The painter kept a small studio and worked there every day. " * 30
    path = tmp_path / "long.json"
    passage = {"title": "Tom Copping", "text": filler + "He later lived in Ulm, Germany."}
    path.write_text(json.dumps([passage]), encoding="utf-8")
    options = BuildOptions(
        extract="fast", communities=False, chunk_size=400, chunk_overlap=0, fact_vectors="sentence"
    )
    report = BuildPipeline(store, embedder, None, options).run([str(path)])
    assert report.chunks_written == 1  # one chunk of more than the 256 pieces read
    rows = store.run_text(
        "MATCH (s:Entity {name: 'Ulm'})<-[:SUBJECT]-(t:Triplet)-[:OBJECT]->(:Entity "
        "{name: 'Germany'}) RETURN t.text AS text, t.embedding AS v"
    ).records()
    assert len(rows) == 1
    (own,) = embedder.embed([str(rows[0]["text"])])
    assert cosine(list(rows[0]["v"]), own) > 0.9999
    assert report.sentence_vectors == 0


@needs_model
def test_a_weak_fact_joins_a_name_an_earlier_build_embedded(
    onnx_store: OnnxStore, tmp_path: Path
) -> None:
    """Germany is embedded by the first build only: the second build's weak fact
    (Munich, Germany) reads its vector from the store to join the two names."""
    store, embedder = onnx_store
    options = BuildOptions(extract="fast", communities=False)
    passages = [
        ("Tom Copping", "Tom Copping is a painter. His studio is in Ulm, Germany, near the river."),
        ("Anna Berg", "Anna Berg is a sculptor. Her workshop is in Munich, Germany, by a park."),
    ]
    reports = []
    for i, (title, text) in enumerate(passages):
        path = tmp_path / f"p{i}.json"
        path.write_text(json.dumps([{"title": title, "text": text}]), encoding="utf-8")
        reports.append(BuildPipeline(store, embedder, None, options).run([str(path)]))
    assert reports[1].sentence_vectors > 0
    (row,) = store.run_text(
        "MATCH (s:Entity {name: 'Munich'})<-[:SUBJECT]-(t:Triplet)-[:OBJECT]->(o:Entity "
        "{name: 'Germany'}) RETURN t.embedding AS v, s.embedding AS s, o.embedding AS o"
    ).records()
    (chunk,) = store.run_text(
        "MATCH (c:Chunk)-[:PART_OF]->(:Document {title: 'Anna Berg'}) RETURN c.text AS t"
    ).records()
    text = str(chunk["t"])
    sentence = "Her workshop is in Munich, Germany, by a park."
    _, (read,) = embedder.embed_spans([text], [[(text.index(sentence), len(text))]])
    assert read[0] is not None
    names = unit_mean([list(row["s"]), list(row["o"])])
    assert names is not None
    expected = unit_mean([read[0], names], [1.0, NAME_WEIGHT])
    assert expected is not None
    assert cosine(list(row["v"]), expected) > 0.9999
