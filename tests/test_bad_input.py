"""Bad input never costs the rest of the corpus: one folder of every kind of bad file,
built in one go, ends with every good file in the store and every bad one named with
its reason; a document the store refuses is left out alone; counts are what was written."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from buildkit import CORPUS, build, minimal_pdf, scripted_llm
from conftest import NEO4J_URI, StoreFactory, open_neo4j
from graphmind.core.errors import QueryFailedError
from graphmind.ingest.chunking import MAX_WORD
from graphmind.store.base import GraphStore
from helpers.cli import graphmind

LATIN1 = (
    "Der Bäcker aus München verkaufte frische Brötchen. Die Größe der Stücke war "
    "überraschend, und die Kundin aus Zürich lobte den Geschmack. Später öffnete er "
    "ein Café an der Straße, wo man Spätzle und Kuchen aß."
)
GIANT = 200_000


def bad_folder(root: Path) -> tuple[dict[str, str], dict[str, str]]:
    """A folder with good files (some in odd encodings) and every kind of bad one.
    Returns {good file: a phrase its text holds} and {bad file or entry: reason words}."""
    root.mkdir(parents=True)
    good = {
        "plain.txt": "Ada Lovelace wrote the first program.",
        "nul.txt": "Grace Hopper found a moth in the relay.",
        "latin1.txt": "Bäcker aus München",
        "utf16.txt": "Niels Bohr lived in Copenhagen.",
        "bom.md": "She won two Nobel prizes.",
        "giant.txt": "The giant file ends here.",
        "page.html": "Lise Meitner explained fission.",
        "paper.pdf": "Text inside a PDF",
        "mixed.jsonl": "Otto Hahn found barium.",
        "records.json": "Enrico Fermi built a reactor.",
    }
    (root / "plain.txt").write_text(good["plain.txt"])
    (root / "nul.txt").write_bytes(b"Grace Hopper\x00 found a moth\x00 in the relay.\x07")
    (root / "latin1.txt").write_bytes(LATIN1.encode("latin-1"))
    (root / "utf16.txt").write_bytes("Niels Bohr lived in Copenhagen.".encode("utf-16"))
    (root / "bom.md").write_bytes("# Marie Curie\n\nShe won two Nobel prizes.".encode("utf-8-sig"))
    (root / "giant.txt").write_text(
        "A giant token follows. " + "x" * GIANT + " " + good["giant.txt"]
    )
    (root / "page.html").write_text(f"<title>Meitner</title><p>{good['page.html']}</p>")
    (root / "paper.pdf").write_bytes(minimal_pdf(good["paper.pdf"]))
    (root / "mixed.jsonl").write_text(
        json.dumps({"title": "Hahn", "text": good["mixed.jsonl"]})
        + "\n{not json at all\n"
        + json.dumps({"title": "Strassmann", "text": "Fritz Strassmann helped."})
        + "\n"
    )
    (root / "records.json").write_text(
        json.dumps(
            [
                {"title": "Fermi", "text": good["records.json"]},
                {"title": "Missing"},
                {"title": "Null", "text": None},
                {"title": "Number", "text": 42},
            ]
        )
    )
    bad = {
        "mixed.jsonl:2": "line 2 skipped: invalid JSON",
        "records.json#Missing": "has no text",
        "records.json#Null": "is null",
        "records.json#Number": "not text",
        "deep.json": "nested too deeply",
        "broken.json": "invalid JSON",
        "binary.txt": "not text",
        "broken.pdf": "unreadable PDF",
        "empty.txt": "no text",
        "loop.txt": "symbolic link loop",
        "dangling.md": "broken symbolic link",
    }
    (root / "deep.json").write_text("[" * 5000 + "]" * 5000)
    (root / "broken.json").write_text('[{"title": "x", "text": ')
    (root / "binary.txt").write_bytes(random.Random(0).randbytes(4096))
    (root / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is not a PDF at all\n%%EOF\n")
    (root / "empty.txt").write_text("")
    os.symlink("loop.txt", root / "loop.txt")
    os.symlink("nowhere.md", root / "dangling.md")
    return good, bad


def _sources(store: GraphStore) -> dict[str, str]:
    """{file name (with #entry): the document's text} from the chunks in the store."""
    rows = store.run_text(
        "MATCH (c:Chunk)-[:PART_OF]->(d:Document) RETURN d.source AS source, c.text AS text "
        "ORDER BY c.position"
    ).records()
    out: dict[str, str] = {}
    for r in rows:
        name = Path(r["source"]).name
        out[name] = out.get(name, "") + r["text"]
    return out


def _check_store(store: GraphStore, good: dict[str, str]) -> None:
    texts = _sources(store)
    for name, phrase in good.items():
        held = [text for source, text in texts.items() if source.split("#")[0] == name]
        assert held, f"{name} is not in the store"
        assert any(phrase in text for text in held), f"{name}: {phrase!r} not in {held}"
    joined = "".join(texts.values())
    assert "\x00" not in joined and "\x07" not in joined and "\ufeff" not in joined
    sizes = [len(r["t"]) for r in store.run_text("MATCH (c:Chunk) RETURN c.text AS t").records()]
    assert max(sizes) <= 512 * MAX_WORD + 64, "the giant token was not split"


def test_battery_of_bad_files_through_the_command_line(tmp_path: Path) -> None:
    good, bad = bad_folder(tmp_path / "corpus")
    env = {"GRAPHMIND_EMBEDDER": "hash:384"}
    result = graphmind(tmp_path, "build", "corpus", "--extract", "none", env=env)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    summary = result.stdout
    assert f"{len(bad)} not read:" in summary
    for name, reason in bad.items():
        line = next((ln for ln in summary.splitlines() if f"{name}:" in ln), None)
        assert line is not None, f"{name} is not named in the summary"
        assert reason in line, line
    assert "read as" in summary  # the latin-1 file: which encoding was detected
    assert "control character(s) removed" in summary
    strict = graphmind(tmp_path, "build", "corpus", "--extract", "none", "--strict", env=env)
    assert strict.returncode == 1 and "--strict" in strict.stderr
    assert "documents skipped (unchanged)" in strict.stdout
    listed = graphmind(tmp_path, "documents", "list", "--json", env=env)
    assert listed.returncode == 0, listed.stderr
    names = {Path(d["source"]).name.split("#")[0] for d in json.loads(listed.stdout)}
    assert names == set(good)
    from conftest import open_falkordb

    store = open_falkordb(tmp_path / ".graphmind" / "graph.db")
    try:
        _check_store(store, good)
    finally:
        store.close()


def test_battery_of_bad_files_through_the_pipeline(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    good, bad = bad_folder(tmp_path / "corpus")
    store = open_store()
    report = build(store, [tmp_path / "corpus"], scripted_llm(tmp_path / "cache.sqlite"))
    failed = {Path(f.source).name: f.reason for f in report.load_failures}
    assert set(failed) == set(bad)
    for name, reason in bad.items():
        assert reason in failed[name]
    assert report.documents_new == store.counts()["Document"] == 11  # the jsonl holds 2
    _check_store(store, good)
    bom = store.run_text("MATCH (d:Document) WHERE d.source ENDS WITH 'bom.md' RETURN d.title AS t")
    assert bom.records() == [{"t": "Marie Curie"}]


def _refuse(store: GraphStore, title: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store refuses every write of the document titled ``title``."""
    original = store.run

    def refusing(name: str, params: Any = None, *, write: bool = False, **slots: str) -> Any:
        if name == "build/write_documents" and any(r["title"] == title for r in params["rows"]):
            raise QueryFailedError("the store refused the query: poison")
        return original(name, params, write=write, **slots)

    monkeypatch.setattr(store, "run", refusing)


def test_a_document_the_store_refuses_is_left_out_alone(
    open_store: StoreFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    (corpus / "poison.txt").write_text("This document is refused by the store.")
    store = open_store()
    _refuse(store, "poison", monkeypatch)
    report = build(store, [corpus], scripted_llm(tmp_path / "cache.sqlite"))
    assert report.documents_new == 5 == store.counts()["Document"]
    assert [(Path(f.source).name, f.reason) for f in report.load_failures] == [
        ("poison.txt", "not written: the store refused the query: poison")
    ]
    one = build(store, [corpus], scripted_llm(tmp_path / "cache.sqlite"), batch_docs=1)
    assert one.documents_skipped == 5 and len(one.load_failures) == 1  # no loop, no stop


def test_nul_bytes_reach_the_store_cleaned_in_every_field(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    (tmp_path / "c.json").write_text(
        json.dumps([{"title": "A\u0000B", "text": "One\u0000two."}, {"title": "C", "text": "x"}])
    )
    store = open_store()
    report = build(store, [tmp_path / "c.json"], None, extract="none", batch_docs=1)
    assert report.documents_new == 2 and report.load_failures == []
    titles = store.run_text("MATCH (d:Document) RETURN d.title AS t ORDER BY t").records()
    assert titles == [{"t": "AB"}, {"t": "C"}]


class _Interrupting:
    """A hashed embedder that raises KeyboardInterrupt on its ``at``-th call."""

    def __init__(self, at: int) -> None:
        from buildkit import HASH_SPEC
        from graphmind.embed.hashing import HashingEmbedder

        self.inner = HashingEmbedder(HASH_SPEC)
        self.calls = 0
        self.at = at

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        if self.calls == self.at:
            raise KeyboardInterrupt
        return self.inner.embed(texts)


def _corpus(root: Path, n: int) -> Path:
    root.mkdir()
    for i in range(n):
        (root / f"doc{i:02d}.txt").write_text(f"Document number {i} talks about topic {i}.")
    return root


def test_ctrl_c_summary_counts_what_was_written(open_store: StoreFactory, tmp_path: Path) -> None:
    from buildkit import HASH_SPEC
    from graphmind.ingest.options import BuildOptions
    from graphmind.ingest.pipeline import BuildPipeline

    corpus = _corpus(tmp_path / "corpus", 10)
    store = open_store()
    store.ensure_schema(HASH_SPEC)
    options = BuildOptions(extract="none", batch_docs=2)
    pipeline = BuildPipeline(store, _Interrupting(at=3), None, options)  # type: ignore[arg-type]
    report = pipeline.run([str(corpus)])
    assert report.interrupted
    assert report.documents_new == store.counts()["Document"] == 4
    assert report.documents_not_reached == 6
    assert report.chunks_written == store.counts()["Chunk"]


def test_ctrl_c_after_the_store_wrote_a_batch_still_counts_it(
    open_store: StoreFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = _corpus(tmp_path / "corpus", 6)
    store = open_store()
    original = store.run
    writes = 0

    def interrupted(name: str, params: Any = None, *, write: bool = False, **slots: str) -> Any:
        nonlocal writes
        rows = original(name, params, write=write, **slots)
        if name == "build/write_documents":
            writes += 1
            if writes == 2:  # the query ran on the server; Ctrl-C came before its answer
                raise KeyboardInterrupt
        return rows

    monkeypatch.setattr(store, "run", interrupted)
    report = build(store, [corpus], None, extract="none", batch_docs=2)
    assert report.interrupted
    assert report.documents_new == store.counts()["Document"] == 4
    assert report.documents_not_reached == 2


def test_a_build_counts_documents_another_build_wrote_first(
    open_store: StoreFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = _corpus(tmp_path / "corpus", 5)
    store = open_store()
    build(store, [corpus], None, extract="none")
    original = store.run

    def stale_plan(name: str, params: Any = None, *, write: bool = False, **slots: str) -> Any:
        if name == "build/document_states":  # planned before the other build wrote
            return []
        return original(name, params, write=write, **slots)

    monkeypatch.setattr(store, "run", stale_plan)
    report = build(store, [corpus], None, extract="none")
    assert report.documents_new == 0 and report.documents_elsewhere == 5
    assert report.chunks_written == 0
    assert store.counts()["Document"] == 5


@pytest.mark.neo4j
@pytest.mark.skipif(not NEO4J_URI, reason="needs GRAPHMIND_TEST_NEO4J_URI")
def test_two_builders_on_neo4j_report_what_each_wrote(tmp_path: Path) -> None:
    from buildkit import HASH_SPEC
    from graphmind.embed.hashing import HashingEmbedder
    from graphmind.ingest.options import BuildOptions
    from graphmind.ingest.pipeline import BuildPipeline

    corpus = _corpus(tmp_path / "corpus", 40)
    first = open_neo4j()
    first.wipe()
    first.ensure_schema(HASH_SPEC)
    second = open_neo4j()
    reports: list[Any] = []
    gate = threading.Barrier(2)

    def run(store: GraphStore) -> None:
        options = BuildOptions(extract="none", batch_docs=1)
        pipeline = BuildPipeline(store, HashingEmbedder(HASH_SPEC), None, options)
        documents = pipeline.load([str(corpus)])
        planned = pipeline.plan(documents)
        gate.wait()  # both planned 40 new documents before either wrote
        pipeline.chunk(planned)
        for item in planned:
            rows = pipeline.rows([item], {})
            pipeline.embed(rows)
            pipeline.write([item], rows)
        reports.append(pipeline.report)

    try:
        threads = [threading.Thread(target=run, args=(s,)) for s in (first, second)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(reports) == 2
        assert sum(r.documents_new for r in reports) == 40 == first.counts()["Document"]
        assert all(r.documents_new + r.documents_elsewhere == 40 for r in reports)
        assert all(r.load_failures == [] for r in reports)
    finally:
        first.close()
        second.close()


class _ShortSighted:
    """The hashed embedder, reading only 40 tokens per text (like a small model)."""

    def __init__(self) -> None:
        from buildkit import HASH_SPEC
        from graphmind.embed.hashing import HashingEmbedder

        self.inner = HashingEmbedder(HASH_SPEC)
        self.max_tokens = 40

    def embed(self, texts: list[str]) -> list[list[float]]:
        return self.inner.embed(texts)


def test_the_default_chunk_size_fits_the_embedder_without_a_warning(
    open_store: StoreFactory, tmp_path: Path
) -> None:
    from buildkit import HASH_SPEC
    from graphmind.ingest.options import BuildOptions
    from graphmind.ingest.pipeline import BuildPipeline

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "long.txt").write_text(" ".join(f"Sentence {i} is here." for i in range(60)))
    store = open_store()
    store.ensure_schema(HASH_SPEC)
    embedder: Any = _ShortSighted()
    default = BuildPipeline(store, embedder, None, BuildOptions(extract="none", chunk_overlap=8))
    report = default.run([str(corpus)])
    assert report.chunk_size == 40 and report.warnings == []
    tokens = store.run_text("MATCH (c:Chunk) RETURN max(c.tokens) AS n").records()[0]["n"]
    assert 30 < tokens <= 40
    store.wipe()
    store.ensure_schema(HASH_SPEC)
    asked = BuildOptions(extract="none", chunk_size=100)
    report = BuildPipeline(store, embedder, None, asked).run([str(corpus)])
    assert report.chunk_size == 100
    assert report.warnings == [
        "chunks of up to 100 tokens are longer than what the embedder reads (40 tokens); "
        "consider --chunk-size 40"
    ]


def test_pdf_complaints_become_a_note_not_noise(tmp_path: Path) -> None:
    pdf = bytearray(minimal_pdf("A PDF with a wrong cross-reference offset"))
    start = pdf.rindex(b"startxref\n") + len(b"startxref\n")
    end = pdf.index(b"\n", start)
    pdf[start:end] = str(int(pdf[start:end]) + 7).encode()  # pypdf repairs it, complaining
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "skewed.pdf").write_bytes(bytes(pdf))
    env = {"GRAPHMIND_EMBEDDER": "hash:384"}
    result = graphmind(tmp_path, "build", "corpus", "--extract", "none", env=env)
    assert result.returncode == 0, result.stderr
    assert "incorrect startxref pointer" not in result.stderr  # pypdf's own printing
    note = next(ln for ln in result.stdout.splitlines() if ln.startswith("note:"))
    assert "skewed.pdf: pypdf reported 2 problem(s), first: incorrect startxref" in note
    assert re.search(r"documents new\W+1\b", result.stdout)


def test_utf8_full_of_nul_bytes_is_read_as_utf8_without_a_note() -> None:
    """Many NUL bytes send the reader to detection (they could be UTF-16); when detection
    finds UTF-8 after all, no "not UTF-8" note contradicts it."""
    from graphmind.ingest.decoding import read_text

    text = "Grüße\x00\x00\x00 aus\x00\x00 München\x00\x00\x00 café"
    assert read_text(text.encode()) == (text, None)
    utf16 = "Niels Bohr lived in Copenhagen.".encode("utf-16-le")
    assert read_text(utf16)[1] == "not UTF-8: read as utf_16_le (detected; --encoding overrides)"


def test_an_entity_of_a_refused_document_gets_its_vector_from_the_next_batch(
    open_store: StoreFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the next batch is embedded while the refused one is being written, counting on that
    # write for the entities they share: when it is refused, they are embedded after all
    (tmp_path / "a.txt").write_text("Marie Curie was born in Warsaw. Poison.")
    (tmp_path / "b.txt").write_text("Marie Curie was born in Warsaw.")
    store = open_store()
    _refuse(store, "a", monkeypatch)
    report = build(store, [tmp_path], scripted_llm(tmp_path / "cache.sqlite"), batch_docs=1)
    assert report.documents_new == 1 and len(report.load_failures) == 1
    rows = store.run_text(
        "MATCH (n) WHERE n:Entity OR n:Triplet "
        "RETURN n.embedding IS NULL AS missing, count(n) AS n ORDER BY missing"
    ).records()
    assert rows == [{"missing": False, "n": 3}]  # Marie Curie, Warsaw and their triplet
