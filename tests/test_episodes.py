"""The episodic layer: windows over each document's chunks, summaries, NEXT chains,
re-runs that change nothing, edited documents, and fallbacks for unusable LLM output."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from buildkit import HASH_SPEC, build, dump, provider_of
from conftest import StoreFactory
from graphmind.communities import episodes as episodes_module
from graphmind.communities.episodes import (
    MAX_INPUT_CHARS,
    MAX_SUMMARY_CHARS,
    EpisodeStats,
    EpisodeSummary,
    build_episodes,
    episode_counts,
    extractive_summary,
    fair_share,
    fresh_passages,
    plan_document,
    window_size,
    windows,
)
from graphmind.embed.hashing import HashingEmbedder
from graphmind.llm.base import Message
from graphmind.llm.client import LLM
from graphmind.llm.scripted import ScriptedProvider
from graphmind.store.base import GraphStore

CHUNKING: dict[str, Any] = {"extract": "none", "chunk_size": 48, "chunk_overlap": 16}
PLACES = ["the harbour", "the old mill", "the chapel", "the market", "the lighthouse"]
PEOPLE = ["Mira", "Tobin", "Old Hesk", "Captain Varo", "Lena"]


def narrative(days: int, twist: str = "") -> str:
    """A long story: one short paragraph per day, each with a unique landmark."""
    out = []
    for day in range(1, days + 1):
        who, other = PEOPLE[day % 5], PEOPLE[(day + 2) % 5]
        out.append(
            f"On day {day} {who} walked to {PLACES[day % 5]} near landmark{day}. "
            f"There {who} met {other} and they spoke about the storm. "
            f"In the evening {other} wrote the word token{day} in a ledger{twist}."
        )
    return "\n\n".join(out)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "saga.txt").write_text(narrative(20))
    (folder / "short.txt").write_text(narrative(3))
    (folder / "note.txt").write_text("Mira keeps a small boat at the harbour.")
    return folder


@pytest.fixture
def hstore(open_store: StoreFactory) -> GraphStore:
    return open_store()


def embedder() -> HashingEmbedder:
    return HashingEmbedder(HASH_SPEC)


def summarising(messages: list[Message]) -> str:
    """A scripted episode summariser: it retells the passages' landmarks and tokens."""
    user = messages[-1]["content"]
    marks = [w.strip(".,") for w in user.split() if w.startswith(("landmark", "token"))]
    return json.dumps({"summary": "Events: " + " ".join(dict.fromkeys(marks)) + "."})


def episode_llm(cache: Path | None = None, responder: Any = summarising) -> LLM:
    """A scripted LLM; with no cache file every request reaches the provider."""
    from graphmind.llm.cache import ResponseCache

    return LLM(ScriptedProvider(responder), cache=ResponseCache(cache) if cache else None)


def chunk_counts(store: GraphStore) -> dict[str, int]:
    rows = store.run_text(
        "MATCH (c:Chunk)-[:PART_OF]->(d:Document) RETURN d.title AS title, count(c) AS n"
    ).records()
    return {r["title"]: r["n"] for r in rows}


def episodes_by_title(store: GraphStore) -> dict[str, list[dict[str, Any]]]:
    """Each document's episodes in start order, with the positions of the chunks covered."""
    rows = store.run_text(
        "MATCH (e:Episode)-[:COVERS]->(c:Chunk)-[:PART_OF]->(d:Document) "
        "RETURN d.title AS title, e.id AS id, e.start AS start, e.end AS end, "
        "e.chunk_count AS chunk_count, e.summary AS summary, e.summary_status AS status, "
        "e.document_id AS document_id, d.id AS document, collect(c.position) AS positions"
    ).records()
    out: dict[str, list[dict[str, Any]]] = {}
    for r in sorted(rows, key=lambda r: r["start"]):
        r["positions"] = sorted(r["positions"])
        out.setdefault(r["title"], []).append(r)
    return out


def next_chain(store: GraphStore) -> dict[str, str]:
    rows = store.run_text(
        "MATCH (a:Episode)-[:NEXT]->(b:Episode) RETURN a.id AS a, b.id AS b"
    ).records()
    return {r["a"]: r["b"] for r in rows}


# -- pure functions ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "size"),
    [
        (1, 3),
        (20, 3),
        (21, 5),
        (50, 5),
        (51, 8),
        (100, 8),
        (101, 10),
        (200, 10),
        (201, 15),
        (1000, 19),
        (10**6, 20),
    ],
)
def test_window_size(n: int, size: int) -> None:
    assert window_size(n) == size


def test_window_size_refuses_an_empty_document() -> None:
    with pytest.raises(ValueError):
        window_size(0)


def test_windows_are_consecutive_and_cover_everything() -> None:
    assert windows(1) == [(0, 1)]
    assert windows(7) == [(0, 3), (3, 6), (6, 7)]
    assert windows(0) == []
    for n in (1, 2, 20, 21, 49, 77, 150, 201, 999):
        spans = windows(n)
        assert spans[0][0] == 0 and spans[-1][1] == n
        assert all(a[1] == b[0] for a, b in pairwise(spans))
        assert all(b - a == window_size(n) for a, b in spans[:-1])
        assert 0 < spans[-1][1] - spans[-1][0] <= window_size(n)


def test_episode_ids_are_deterministic_and_chained() -> None:
    chunks = [f"c{i}" for i in range(7)]
    first, again = plan_document("d1", "Saga", chunks), plan_document("d1", "Saga", chunks)
    assert first == again
    assert [e.chunks for e in first] == [("c0", "c1", "c2"), ("c3", "c4", "c5"), ("c6",)]
    assert [(e.start, e.end) for e in first] == [(0, 2), (3, 5), (6, 6)]
    assert [e.previous for e in first] == [None, first[0].id, first[1].id]
    assert [e.next for e in first] == [first[1].id, first[2].id, None]
    assert len({e.id for e in first}) == 3
    assert plan_document("d2", "Saga", chunks)[0].id != first[0].id


def test_summary_model_trims_and_caps() -> None:
    assert EpisodeSummary.model_validate({"summary": "  Mira   sails. "}).summary == "Mira sails."
    long = EpisodeSummary.model_validate({"summary": "word " * 1000}).summary
    assert len(long) <= MAX_SUMMARY_CHARS and long.endswith("…")
    with pytest.raises(ValueError):
        EpisodeSummary.model_validate({"summary": "   "})


def test_overlap_is_dropped_and_extractive_summary_takes_first_new_sentences() -> None:
    texts = ["Mira rows out. The sea is calm.", "The sea is calm. Tobin waves. Rain falls."]
    assert fresh_passages(texts) == [texts[0], "Tobin waves. Rain falls."]
    assert extractive_summary(fresh_passages(texts)) == "Mira rows out. Tobin waves."
    assert len(extractive_summary(["A long sentence here. " * 200])) <= MAX_SUMMARY_CHARS


def test_fair_share_lets_short_passages_give_their_budget_to_long_ones() -> None:
    assert fair_share([10, 20], 100) == 20
    assert fair_share([10, 500, 500], 410) == 200
    assert fair_share([300, 300], 100) == 50


def test_prompt_input_is_bounded_and_keeps_every_passage() -> None:
    episode = plan_document("d", "Saga", [f"c{i}" for i in range(5)])[0]
    passages = [f"Passage{i} " + "lorem ipsum " * 2000 for i in range(3)]
    messages = episodes_module.messages_for(episode, passages)
    user = messages[1]["content"]
    assert len(user) <= MAX_INPUT_CHARS
    assert all(f"[{i + 1}] Passage{i}" in user for i in range(3))
    assert "passages 1 to 3 of 5" in user and "Saga" in user
    assert "narrative" in messages[0]["content"]


# -- against the store ---------------------------------------------------------------------


def test_episodes_cover_every_chunk_once_in_order(hstore: GraphStore, corpus: Path) -> None:
    build(hstore, [corpus], None, **CHUNKING)
    counts = chunk_counts(hstore)
    assert 21 <= counts["saga"] <= 50 and 4 <= counts["short"] <= 20 and counts["note"] == 1
    llm = episode_llm()
    stats = build_episodes(hstore, embedder(), llm)

    expected = {title: len(windows(n)) for title, n in counts.items()}
    assert stats.documents == 3 and stats.episodes == sum(expected.values())
    assert stats.new == stats.summarised == stats.episodes == provider_of(llm).calls
    assert stats.unchanged == stats.deleted == stats.fallbacks == 0
    assert isinstance(stats, EpisodeStats)
    assert {"plan", "summarise", "embed", "write", "total"} <= set(stats.seconds)
    assert llm.ledger.get("episode").calls == stats.episodes
    chain = next_chain(hstore)
    for title, n in counts.items():
        eps = episodes_by_title(hstore)[title]
        assert len(eps) == expected[title]
        size = window_size(n)
        covered = [p for e in eps for p in e["positions"]]
        assert covered == list(range(n))  # every chunk once, in order
        for e in eps:
            assert e["positions"] == list(range(e["start"], e["end"] + 1))
            assert e["chunk_count"] == len(e["positions"]) <= size
            assert e["document_id"] == e["document"] and e["status"] == "llm"
        assert all(chain[a["id"]] == b["id"] for a, b in pairwise(eps))
        assert eps[-1]["id"] not in chain
    assert len(chain) == sum(expected.values()) - 3  # no NEXT across documents
    saga = episodes_by_title(hstore)["saga"]
    assert all(len(e["positions"]) == 5 for e in saga[:-1])
    assert saga[0]["summary"].startswith("Events: landmark1 token1")
    assert episode_counts(hstore) == {"llm": stats.episodes}
    # every LLM request is bounded and names its passages in order
    sizes = sorted(e["chunk_count"] for eps in episodes_by_title(hstore).values() for e in eps)
    seen = []
    for request in provider_of(llm).requests:
        user = request[-1]["content"]
        assert len(user) <= MAX_INPUT_CHARS
        marks = [user.find(f"\n[{i}] ") for i in range(1, 6)]
        count = sum(m >= 0 for m in marks)
        assert marks[:count] == sorted(marks[:count]) and -1 not in marks[:count]
        seen.append(count)
    assert sorted(seen) == sizes


def test_episodes_are_embedded_and_found_by_vector_search(hstore: GraphStore, corpus: Path) -> None:
    build(hstore, [corpus], None, **CHUNKING)
    build_episodes(hstore, embedder(), episode_llm())
    missing = hstore.run_text(
        "MATCH (e:Episode) WHERE e.embedding IS NULL RETURN count(e) AS n"
    ).records()
    assert missing == [{"n": 0}]
    target = next(e for e in episodes_by_title(hstore)["saga"] if "landmark7" in e["summary"])
    query = embedder().embed(["Which episode mentions landmark7 and token7?"])[0]
    hits = hstore.vector_search("Episode", query, 3)
    assert hits[0].id == target["id"]
    assert hits[0].properties["summary"] == target["summary"]
    assert "embedding" not in hits[0].properties
    exact = embedder().embed([f"saga\n{target['summary']}"])[0]
    assert hstore.vector_search("Episode", exact, 1)[0].similarity == pytest.approx(1.0)


def test_rerun_makes_no_llm_calls_and_changes_nothing(
    hstore: GraphStore, corpus: Path, tmp_path: Path
) -> None:
    build(hstore, [corpus], None, **CHUNKING)
    first = build_episodes(hstore, embedder(), episode_llm(tmp_path / "cache.sqlite"))
    before = dump(hstore, volatile=())
    again = episode_llm()  # no cache: any request would reach the provider
    stats = build_episodes(hstore, embedder(), again)
    assert provider_of(again).calls == 0 and again.ledger.rows() == []
    assert stats.unchanged == stats.episodes == first.episodes
    assert stats.new == stats.deleted == stats.summarised == stats.fallbacks == 0
    assert dump(hstore, volatile=()) == before


def test_editing_a_document_replaces_only_its_episodes(hstore: GraphStore, corpus: Path) -> None:
    build(hstore, [corpus], None, **CHUNKING)
    build_episodes(hstore, embedder(), episode_llm())
    before = episodes_by_title(hstore)
    others = _episode_dump(hstore, exclude_title="short")
    (corpus / "short.txt").write_text(narrative(4, twist=" by candlelight"))
    report = build(hstore, [corpus], None, **CHUNKING)
    assert report.documents_changed == 1 and report.documents_skipped == 2

    llm = episode_llm()
    stats = build_episodes(hstore, embedder(), llm)
    after = episodes_by_title(hstore)
    n_short = chunk_counts(hstore)["short"]
    assert stats.deleted == len(before["short"])
    assert stats.new == provider_of(llm).calls == len(windows(n_short)) == len(after["short"])
    assert stats.unchanged == len(before["saga"]) + len(before["note"])
    assert {e["id"] for e in after["short"]}.isdisjoint(e["id"] for e in before["short"])
    assert [p for e in after["short"] for p in e["positions"]] == list(range(n_short))
    assert "token4" in after["short"][-1]["summary"]
    assert _episode_dump(hstore, exclude_title="short") == others
    # the old episodes left nothing behind: every episode covers chunks of one document
    assert hstore.run_text(
        "MATCH (e:Episode) WHERE NOT (e)-[:COVERS]->(:Chunk) RETURN count(e) AS n"
    ).records() == [{"n": 0}]
    assert hstore.counts()["Episode"] == sum(len(v) for v in after.values())


def test_garbage_llm_output_falls_back_to_extractive_summaries(
    hstore: GraphStore, corpus: Path
) -> None:
    build(hstore, [corpus], None, **CHUNKING)
    garbage = episode_llm(responder=lambda messages: "I cannot summarise stories, sorry.")
    stats = build_episodes(hstore, embedder(), garbage)
    assert stats.fallbacks == stats.episodes > 0 and stats.summarised == 0
    assert provider_of(garbage).calls == 3 * stats.episodes  # first try + 2 repairs each
    by_title = episodes_by_title(hstore)
    assert {e["status"] for eps in by_title.values() for e in eps} == {"extractive"}
    saga = by_title["saga"][0]["summary"]
    assert saga.startswith("On day 1 Tobin walked to the old mill near landmark1. On day 2")
    assert by_title["note"][0]["summary"] == "Mira keeps a small boat at the harbour."
    assert episode_counts(hstore) == {"extractive": stats.episodes}

    # a later run with a working LLM summarises the fallbacks again; then nothing is left
    good = episode_llm()
    redo = build_episodes(hstore, embedder(), good)
    assert redo.new == redo.summarised == provider_of(good).calls == stats.episodes
    assert redo.deleted == 0 and episode_counts(hstore) == {"llm": stats.episodes}
    assert len(next_chain(hstore)) == stats.episodes - 3


def test_without_an_llm_summaries_are_extractive(hstore: GraphStore, corpus: Path) -> None:
    build(hstore, [corpus], None, **CHUNKING)
    progress = RecordingProgress()
    stats = build_episodes(hstore, embedder(), None, progress=progress)
    assert stats.fallbacks == stats.new == stats.episodes and stats.summarised == 0
    assert progress.started == [("episodes", stats.episodes)]
    assert progress.advanced == stats.episodes
    again = build_episodes(hstore, embedder(), None)
    assert again.unchanged == stats.episodes and again.new == 0


def test_progress_counts_llm_summaries(hstore: GraphStore, corpus: Path) -> None:
    build(hstore, [corpus], None, **CHUNKING)
    progress = RecordingProgress()
    stats = build_episodes(hstore, embedder(), episode_llm(), progress=progress)
    assert progress.started == [("episodes", stats.episodes)]
    assert progress.advanced == stats.episodes and all(a > 0 for a in progress.amounts)


def test_only_the_given_documents(hstore: GraphStore, corpus: Path) -> None:
    build(hstore, [corpus], None, **CHUNKING)
    note = hstore.run_text("MATCH (d:Document {title: 'note'}) RETURN d.id AS id").records()
    stats = build_episodes(
        hstore, embedder(), None, document_ids=[note[0]["id"], "no-such-document"]
    )
    assert stats.documents == stats.episodes == 1
    assert set(episodes_by_title(hstore)) == {"note"}
    rest = build_episodes(hstore, embedder(), None)
    assert rest.unchanged == 1 and rest.documents == 3


def test_changed_windowing_replaces_stale_episodes(
    hstore: GraphStore, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(hstore, [corpus], None, **CHUNKING)
    first = build_episodes(hstore, embedder(), None)
    monkeypatch.setattr(episodes_module, "window_size", lambda n: 2)
    stats = build_episodes(hstore, embedder(), None)
    counts = chunk_counts(hstore)
    assert stats.episodes == sum((n + 1) // 2 for n in counts.values())
    assert stats.deleted == first.episodes - 1  # the one-chunk note keeps its episode
    for title, eps in episodes_by_title(hstore).items():
        assert [p for e in eps for p in e["positions"]] == list(range(counts[title]))
    assert hstore.counts()["Episode"] == stats.episodes


def test_episodes_written_one_per_query_and_a_lost_one_is_relinked(
    hstore: GraphStore, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(hstore, [corpus], None, **CHUNKING)
    monkeypatch.setattr(episodes_module, "BATCH", 1)
    stats = build_episodes(hstore, embedder(), None)
    chain = next_chain(hstore)
    assert len(chain) == stats.episodes - 3
    saga = episodes_by_title(hstore)["saga"]
    before = dump(hstore, volatile=())
    # the middle episode disappears, as if its write had never happened
    hstore.run("episode/delete_episodes", {"ids": [saga[2]["id"]]}, write=True)
    assert len(next_chain(hstore)) == stats.episodes - 5
    again = build_episodes(hstore, embedder(), None)
    assert again.new == 1 and again.unchanged == stats.episodes - 1
    assert dump(hstore, volatile=()) == before


class RecordingProgress:
    """Progress that remembers what it was told."""

    def __init__(self) -> None:
        self.started: list[tuple[str, int | None]] = []
        self.amounts: list[int] = []

    @property
    def advanced(self) -> int:
        return sum(self.amounts)

    def start(self, stage: str, total: int | None) -> None:
        self.started.append((stage, total))

    def advance(self, stage: str, amount: int = 1) -> None:
        assert stage == "episodes"
        self.amounts.append(amount)


def _episode_dump(store: GraphStore, *, exclude_title: str) -> list[tuple[str, ...]]:
    """Episodes (with their edges' ends) of every document but one."""
    full = dump(store, volatile=())
    rows = store.run_text(
        "MATCH (e:Episode)-[:COVERS]->(:Chunk)-[:PART_OF]->(d:Document) "
        "WHERE d.title <> $title RETURN DISTINCT e.id AS id",
        {"title": exclude_title},
    ).records()
    ids = {r["id"] for r in rows}
    nodes = [n for n in full["nodes"] if n[1] in ids]
    rels = [r for r in full["rels"] if r[0] in ids or r[2] in ids]
    return nodes + rels
