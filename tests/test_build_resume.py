"""A build killed with SIGKILL mid-way, then re-run, ends with exactly the graph of an
uninterrupted build: no duplicates, no half-written documents (on both stores)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from buildkit import build, dump, scripted_llm
from conftest import StoreFactory, open_falkordb
from graphmind.store.base import GraphStore
from graphmind.store.watchdog import alive


def server_pid(db: Path) -> int:
    """The PID of the embedded server running a store, from the settings it leaves."""
    settings = json.loads(db.with_name(db.name + ".settings").read_text())
    return int(Path(settings["pidfile"]).read_text().strip())


CHILD = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, sys.argv[3])
    from buildkit import HASH_SPEC, scripted_llm
    from graphmind.core.progress import NoProgress
    from graphmind.ingest.pipeline import BuildPipeline
    from graphmind.ingest.options import BuildOptions
    from graphmind.embed.hashing import HashingEmbedder
    from graphmind.extract.heuristic import heuristic_response
    from conftest import open_falkordb, open_neo4j

    def slow(messages):
        time.sleep(0.02)
        return heuristic_response(messages)

    class Report(NoProgress):
        def advance(self, stage, amount=1):
            if stage == "documents":
                print("batch", flush=True)

    store = open_neo4j() if sys.argv[1] == "neo4j" else open_falkordb(sys.argv[1])
    store.ensure_schema(HASH_SPEC)
    llm = scripted_llm(__import__("pathlib").Path(sys.argv[2]), slow)
    BuildPipeline(store, HashingEmbedder(HASH_SPEC), llm, BuildOptions(batch_docs=2),
                  Report()).run([sys.argv[4]])
    print("finished", flush=True)
    """
)

PEOPLE = [
    "Ada Lovelace",
    "Alan Turing",
    "Grace Hopper",
    "Edsger Dijkstra",
    "Barbara Liskov",
    "Donald Knuth",
    "John Backus",
    "Frances Allen",
    "Ken Thompson",
    "Dennis Ritchie",
]
PLACES = [
    "London",
    "Manchester",
    "New York",
    "Rotterdam",
    "Los Angeles",
    "Milwaukee",
    "Philadelphia",
    "Peru",
    "New Orleans",
    "Bronxville",
]


def make_corpus(root: Path, n: int = 24) -> Path:
    root.mkdir(parents=True)
    for i in range(n):
        person, place = PEOPLE[i % len(PEOPLE)], PLACES[(i * 3) % len(PLACES)]
        other = PEOPLE[(i + 1) % len(PEOPLE)]
        (root / f"doc{i:02d}.txt").write_text(
            f"{person} lived in {place} in {1900 + i}. {person} worked with {other} at "
            f"Lab Number {i % 5}.\n\n{other} visited {place} for Project {i}."
        )
    return root


def test_killed_build_resumes_to_the_uninterrupted_graph(
    tmp_path: Path, backend: str, open_store: StoreFactory
) -> None:
    corpus = make_corpus(tmp_path / "corpus")
    db = tmp_path / "killed" / "graph.db"
    db.parent.mkdir()
    if backend == "neo4j":
        open_store()  # wipes the database the child writes to
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            CHILD,
            "neo4j" if backend == "neo4j" else str(db),
            str(tmp_path / "cache.sqlite"),
            str(Path(__file__).parent),
            str(corpus),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    batches = 0
    while batches < 4:
        line = child.stdout.readline()
        assert line, "the child build ended before it could be killed"
        batches += line.strip() == "batch"
    server = server_pid(db) if backend == "falkordb" else None
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    if server is not None:
        # before any other command: the killed build's embedded server goes within seconds
        deadline = time.monotonic() + 15
        while alive(server) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not alive(server), "the embedded server outlived the killed build"

    store = open_store() if backend == "neo4j" else open_falkordb(db)
    try:
        written = store.counts()["Document"]
        assert 8 <= written < 24, "the kill should land mid-way"
        half = store.run_text(
            "MATCH (d:Document) WHERE NOT (d)<-[:PART_OF]-(:Chunk) RETURN count(d) AS n"
        ).records()
        assert half == [{"n": 0}]
        llm = scripted_llm(tmp_path / "cache.sqlite")
        report = build(store, [corpus], llm)
        assert report.documents_skipped == written and report.documents_new == 24 - written
        resumed = dump(store)
        if backend == "neo4j":  # the uninterrupted build, in the same database emptied
            store.wipe()
            expected = fresh_dump(store, corpus, tmp_path)
    finally:
        if backend == "falkordb":
            store.close()
    if backend == "falkordb":
        fresh = open_falkordb(tmp_path / "fresh" / "graph.db")
        try:
            expected = fresh_dump(fresh, corpus, tmp_path)
        finally:
            fresh.close()
    for kind in ("nodes", "rels"):
        assert [x for x in resumed[kind] if x not in expected[kind]] == []
        assert [x for x in expected[kind] if x not in resumed[kind]] == []


def fresh_dump(store: GraphStore, corpus: Path, tmp_path: Path) -> dict[str, list[tuple[str, ...]]]:
    """The graph of an uninterrupted build of ``corpus`` into an empty ``store``."""
    build(store, [corpus], scripted_llm(tmp_path / "fresh-cache.sqlite"))
    return dump(store)
