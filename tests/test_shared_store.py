"""While a build owns the embedded store, other processes attach to its server: ask and
doctor work during the build; a second bulk writer is still locked out."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from buildkit import scripted_llm
from conftest import open_falkordb
from graphmind.config import Settings
from graphmind.core.errors import StoreInUseError
from graphmind.store.falkordb import FalkorDBLiteStore
from helpers.cli import graphmind
from helpers.eval import responder

PASSAGES = 1000

CHILD = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    sys.path.insert(0, sys.argv[3])
    from buildkit import HASH_SPEC
    from graphmind.core.progress import NoProgress
    from graphmind.ingest.pipeline import BuildPipeline
    from graphmind.ingest.options import BuildOptions
    from graphmind.embed.hashing import HashingEmbedder
    from graphmind.store.falkordb import FalkorDBLiteStore

    gate = Path(sys.argv[2])

    class Gate(NoProgress):
        batches = 0

        def advance(self, stage, amount=1):
            if stage == "documents":
                self.batches += 1
                if self.batches == 3:  # mid-build: wait until the test has done its part
                    print("waiting", flush=True)
                    while not gate.exists():
                        time.sleep(0.05)

    store = FalkorDBLiteStore(sys.argv[1])
    store.ensure_schema(HASH_SPEC)
    options = BuildOptions(extract="none", batch_docs=100)
    report = BuildPipeline(store, HashingEmbedder(HASH_SPEC), None, options, Gate()).run(
        [sys.argv[4]]
    )
    store.close()
    print("built", report.documents_new, flush=True)
    """
)


def test_ask_and_doctor_work_while_a_build_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "corpus.json"
    corpus.write_text(
        json.dumps(
            [
                {"title": f"Place {i}", "text": f"Place {i} lies by river {i % 17} in region {i}."}
                for i in range(PASSAGES)
            ]
        )
    )
    db = tmp_path / "store" / "graph.db"
    db.parent.mkdir()
    gate = tmp_path / "go-on"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db), str(gate), str(Path(__file__).parent), str(corpus)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    try:
        assert child.stdout.readline().strip() == "waiting"
        env = {"GRAPHMIND_EMBEDDER": "hash:384", "GRAPHMIND_STORE": f"falkordb-lite://{db}"}
        doctor = graphmind(tmp_path, "doctor", "--json", env=env)
        report = json.loads(doctor.stdout)
        assert report["attached_to"] == child.pid
        assert report["store"]["counts"]["Document"] == 300  # three batches written so far
        assert not [p for p in report["problems"] if not p.startswith(("LLM", "no LLM"))]
        human = graphmind(tmp_path, "doctor", env=env)
        assert f"in use by PID {child.pid}" in human.stdout

        from graphmind import api
        from graphmind import factories as llm_module

        llm = scripted_llm(tmp_path / "llm.sqlite", responder)
        monkeypatch.setattr(llm_module, "make_llm", lambda *_a, **_k: llm)
        settings = Settings(store=f"falkordb-lite://{db}", embedder="hash:384")
        decision = api.ask("Which river runs by Place 7?", settings=settings)
        assert decision.id and decision.rounds

        cypher = graphmind(
            tmp_path, "cypher", "MATCH (d:Decision) RETURN d.id AS id", "--json", env=env
        )
        assert json.loads(cypher.stdout) == [{"id": decision.id}]
        with pytest.raises(StoreInUseError, match=f"in use by PID {child.pid}"):
            FalkorDBLiteStore(str(db))  # a bulk writer still waits its turn
        build = graphmind(tmp_path, "build", str(corpus), "--extract", "none", env=env)
        assert build.returncode == 5 and f"in use by PID {child.pid}" in build.stderr
    finally:
        gate.touch()
        out, _ = child.communicate(timeout=300)
    assert child.returncode == 0 and out.strip() == f"built {PASSAGES}"
    store = open_falkordb(db)
    try:
        counts = store.counts()
        assert counts["Document"] == PASSAGES and counts["Decision"] == 1
    finally:
        store.close()
    assert not Path(str(db) + ".settings").exists()  # no server left running


def test_an_attached_reader_cleans_up_after_an_owner_that_left(tmp_path: Path) -> None:
    db = tmp_path / "graph.db"
    owner = FalkorDBLiteStore(str(db))
    reader = FalkorDBLiteStore(str(db), attach=True)
    assert reader.attached_to is not None
    owner.close()  # the reader is still connected, so the server stays up for it
    assert reader.run("store/count_label", label="Document") == [{"count": 0}]
    reader.close()  # the lock is free now: the reader stops the server it kept alive
    assert not Path(str(db) + ".settings").exists()
    again = FalkorDBLiteStore(str(db))
    again.close()
