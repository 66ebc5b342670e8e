"""``--extract fast``: spaCy extraction with the real English pipeline, built into both
stores, found by the graph retrievers; a missing pipeline package is one clear error."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from buildkit import HASH_SPEC, build, entity_names
from conftest import StoreFactory
from graphmind.ask.retrievers import RETRIEVERS, Query, RetrieveOptions
from graphmind.communities.pipeline import CommunityOptions
from graphmind.core.errors import ConfigError
from graphmind.core.recipes import PPR, TRIPLET
from graphmind.embed.hashing import HashingEmbedder
from graphmind.extract.extractor import ChunkText
from graphmind.extract.fast import DEFAULT_MODEL, FastExtractor, topic_name
from graphmind.extract.heuristic import heuristic_response
from graphmind.ingest.build import FAST_COMMUNITIES, run_build
from graphmind.ingest.options import BuildOptions
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
