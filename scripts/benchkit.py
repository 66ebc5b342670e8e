"""What several benchmarks share: where a run writes (``Target``) and a scripted model
that answers from the passages it is shown (``responder``)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psutil

from graphmind.config import Settings, load_settings, parse_store_uri
from graphmind.core.errors import GraphMindError
from graphmind.embed.spec import EmbedderSpec
from graphmind.factories import open_store
from graphmind.store.base import DELETE_BATCH, GraphStore
from graphmind.store.falkordb import FalkorDBLiteStore

_PASSAGE = re.compile(r"^\[(\d+)\] \(([^)]*)\) (.*)$", re.MULTILINE)


class Target:
    """Where the runs write: FalkorDB Lite files in a folder, or one Neo4j database that is
    emptied before each run."""

    def __init__(self, uri: str | None, workdir: Path) -> None:
        self.workdir = workdir
        self.settings: Settings | None = None
        if uri is not None:
            if parse_store_uri(uri).backend != "neo4j":
                raise GraphMindError(f"--store takes a Neo4j URI (bolt://…), not {uri}")
            self.settings = load_settings(store=uri)

    @property
    def neo4j(self) -> bool:
        return self.settings is not None

    @property
    def label(self) -> str:
        return f"Neo4j at {self.settings.store}" if self.settings else "FalkorDB Lite"

    def open_empty(self, name: str) -> GraphStore:
        """An empty store for the run ``name`` (no schema yet)."""
        if self.settings is None:
            return FalkorDBLiteStore(str(self.workdir / f"{name}.db"))
        store = open_store(self.settings, ensure_schema=False)
        try:
            self.clear(store)
        except BaseException:
            store.close()
            raise
        return store

    def clear(self, store: GraphStore) -> None:
        """Delete a Neo4j database's GraphMind and neo4j-graphrag data (before a run, and
        after one, so that nothing a run wrote outlives the benchmark)."""
        if self.neo4j:
            store.wipe()
            store.drain("bench/graphrag_delete_batch", DELETE_BATCH)
            store.run("bench/graphrag_drop_index", write=True)

    @contextmanager
    def fresh(self, name: str, spec: EmbedderSpec) -> Iterator[GraphStore]:
        """An empty store with GraphMind's schema for ``spec``."""
        store = self.open_empty(name)
        try:
            store.ensure_schema(spec)
            yield store
        finally:
            try:
                self.clear(store)
            finally:
                store.close()

    def server_cpu(self, store: GraphStore) -> float | None:
        """CPU seconds (user and system) the embedded server has used (unknown for a Neo4j
        server)."""
        if not isinstance(store, FalkorDBLiteStore):
            return None
        pid = store._db.client.pid
        if not pid:
            return None
        times = psutil.Process(pid).cpu_times()
        return float(times.user + times.system)

    def server_rss(self, store: GraphStore) -> float | None:
        """Resident memory of the embedded server in MiB (unknown for a Neo4j server)."""
        if not isinstance(store, FalkorDBLiteStore):
            return None
        pid = store._db.client.pid  # the embedded server's process
        return psutil.Process(pid).memory_info().rss / 2**20 if pid else None


def responder(latency: float) -> Any:
    """A model that waits ``latency`` seconds, then answers from the first passage it is
    shown (its last word, citing it) and finds every answer complete."""

    def respond(messages: list[dict[str, str]]) -> str:
        time.sleep(latency)
        if messages[-1]["content"].startswith("Check your answer"):
            return json.dumps({"complete": True, "missing": "", "query": ""})
        found = _PASSAGE.findall(messages[1]["content"]) if len(messages) > 1 else []
        if not found:
            return json.dumps({"answer": "", "citations": [], "abstain": True})
        word = found[0][2].rstrip(".").split()[-1]
        return json.dumps({"answer": f"Harbour {word}", "citations": [1]})

    return respond
