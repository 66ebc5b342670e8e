"""What several benchmarks and evaluations share: where a run writes (``Target``), a
scripted model that answers from the passages it is shown (``responder``), a manual built
into a run's store (``build_manual``), the run files' rows and numbers (``read_jsonl``,
``append_jsonl``, ``spread``, ``share``, ``median``) and the broad evaluation's set and
criteria (``BROAD_QUESTIONS``, ``BROAD_CRITERIA``)."""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psutil

from graphmind.communities.pipeline import CommunityOptions
from graphmind.config import Settings, load_settings, parse_store_uri
from graphmind.core.errors import GraphMindError
from graphmind.embed.base import Embedder
from graphmind.embed.spec import EmbedderSpec
from graphmind.factories import make_embedder, open_store
from graphmind.ingest.build import run_build
from graphmind.ingest.loaders import LoadOptions
from graphmind.ingest.options import BuildOptions, ExtractMode
from graphmind.store.base import DELETE_BATCH, GraphStore
from graphmind.store.falkordb import FalkorDBLiteStore

# the broad evaluation's set, its configuration's name and its judge's criteria (LightRAG's),
# shared by eval_broad.py and blind_pairs.py
BROAD_QUESTIONS = Path(__file__).resolve().parent / "questions" / "python_docs_broad.json"
BROAD = "broad"
BROAD_CRITERIA = ("comprehensiveness", "diversity", "empowerment", "overall")
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


def build_manual(
    settings: Settings, docs: Path, run_dir: Path, extract: ExtractMode, communities: bool
) -> None:
    """A manual's HTML pages into the run's store, once (an interrupted build resumes on
    the next run). No model at build time: with ``communities`` they are titled by their
    members' names."""
    marker = run_dir / "built"
    if marker.exists():
        return
    options = BuildOptions(
        load=LoadOptions(include=("*.html",), exclude=("_sources/*", "genindex*", "_static/*")),
        extract=extract,
        communities=communities,
    )
    started = time.perf_counter()
    with open_store(settings) as store:
        report = run_build(
            store, make_embedder(settings), None, [str(docs)], options, CommunityOptions()
        )
    if report.interrupted:
        raise GraphMindError("the build was interrupted: run again to resume it")
    built: dict[str, Any] = {
        "documents": report.documents_new + report.documents_skipped,
        "chunks": report.chunks_written,
        "seconds": round(time.perf_counter() - started, 1),
    }
    if communities:
        built["communities"] = report.communities
    marker.write_text(json.dumps(built))


def parse_configs(parser: argparse.ArgumentParser, given: str, known: Collection[str]) -> list[str]:
    """The comma-separated configurations ``--configs`` named, each one of ``known`` (else
    the parser's usage error)."""
    configs = [c.strip() for c in given.split(",") if c.strip()]
    if not configs or set(configs) - set(known):
        parser.error(f"--configs takes some of {', '.join(known)} (got {given!r})")
    return configs


def chosen(path: Path, limit: int | None, ids: str | None) -> list[dict[str, Any]]:
    """The questions of a JSON file: those with the comma-separated ``ids`` (in the file's
    order; an unknown id is an error), else ``limit`` spread over the file."""
    questions: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    if not ids:
        return spread(questions, limit)
    wanted = [i.strip() for i in ids.split(",") if i.strip()]
    unknown = sorted(set(wanted) - {q["id"] for q in questions})
    if unknown:
        raise GraphMindError(f"no question with id {', '.join(unknown)} in {path}")
    return [q for q in questions if q["id"] in set(wanted)]


def spread[T](items: list[T], limit: int | None) -> list[T]:
    """``limit`` items spread evenly over the list (the last one included), or all."""
    if limit is None or limit >= len(items):
        return items
    if limit <= 1:
        return items[-limit:] if limit else []
    last = len(items) - 1
    return [items[round(i * last / (limit - 1))] for i in range(limit)]


def share(values: list[bool]) -> float | None:
    """The share of true values (3 decimals), or None for none."""
    return round(sum(values) / len(values), 3) if values else None


def median(values: list[float]) -> float | None:
    """The median (1 decimal), or None for none."""
    return round(statistics.median(values), 1) if values else None


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSON-lines file (none when it is missing); a line cut short by an
    interruption is skipped."""
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return rows


def append_jsonl(path: Path, row: dict[str, Any]) -> None:
    """``row`` as one more line of a JSON-lines file."""
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(row, ensure_ascii=False) + "\n")


Row = dict[str, Any]  # one line of a results or judgements file
# one answer: (store, embedder, question, configuration) -> its row
Answerer = Callable[[GraphStore, Embedder, Row, str], Row]


def ask_each(
    settings: Settings,
    questions: list[dict[str, Any]],
    configs: Sequence[str],
    results: Path,
    answer: Answerer,
    line: Callable[[Row], str],
    replay: Collection[str] = (),
) -> None:
    """Each question by each configuration, its row (``answer``) appended to ``results``
    and a progress line (``line``) printed; pairs already in ``results`` are skipped,
    except that those of a ``replay`` configuration are asked again and their rows left as
    they are (a restored record's answers, asked from its responses, write into the new
    store what they wrote first)."""
    done = {(r["id"], r["config"]) for r in read_jsonl(results)}
    embedder = make_embedder(settings)
    with open_store(settings) as store:
        for n, q in enumerate(questions, start=1):
            for config in configs:
                if (q["id"], config) in done:
                    if config in replay:
                        answer(store, embedder, q, config)
                    continue
                row = answer(store, embedder, q, config)
                append_jsonl(results, row)
                print(f"[{n}/{len(questions)}] {config:5} {line(row)}", flush=True)
