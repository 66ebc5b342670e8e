"""The build pipeline as named stages: load, plan, chunk, extract, embed, write, link.

Documents go through in batches; each batch is written with one atomic query, so an
interrupted build resumes at the next unwritten document with nothing half-written.
A batch the store rejects is written again one document at a time: the document that
cannot be written is reported with the reason, and the others get in. Counts say what
this build wrote (the write query says whether it created each document), so they stay
true after Ctrl-C and beside another build writing the same store.
Entities touched by a write get a ``:Pending`` marker node (not a property: on
FalkorDB, writing any property of a vector-indexed node re-indexes it); the link
stage then resolves near-duplicates, sweeps orphans and rebuilds ``RELATED`` edges
for them, and is itself resumable (a marker is removed when its entity is done).
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from itertools import pairwise
from typing import TYPE_CHECKING, Any, TypeVar

from graphmind.communities.incremental import has_communities, mark_changed
from graphmind.core.errors import (
    ConfigError,
    GraphMindError,
    QueryFailedError,
    QueryParameterError,
)
from graphmind.core.progress import NoProgress, Progress, counter
from graphmind.extract.extractor import (
    ChunkExtraction,
    ChunkText,
    EntityRow,
    TripletRow,
    extract_chunks,
    graph_rows,
    triplet_text,
)
from graphmind.extract.fast import FastExtractor
from graphmind.extract.writer import new_graph_items
from graphmind.ingest.chunking import MIN_CHUNK_TOKENS, Chunk, chunk_text
from graphmind.ingest.decoding import clean_text
from graphmind.ingest.embedding import SentenceRead, embed_texts, join_names, sentence_reads
from graphmind.ingest.linking import (
    EXACT_LINK_LIMIT,
    LINK_BATCH,
    read_entity_vectors,
    same_as_pairs,
)
from graphmind.ingest.loaders import LoadFailure, SourceDocument, load_paths
from graphmind.ingest.options import (
    DEFAULT_CHUNK_SIZE,
    BuildOptions,
    BuildReport,
    settle_extract,
)
from graphmind.store.base import DELETE_BATCH, GraphStore, Row, iter_batches

if TYPE_CHECKING:
    from graphmind.embed import Embedder
    from graphmind.llm import LLM

PLAN_BATCH = 1000  # document sources whose build state one query reads
# a document built with a lower kind of extraction is rebuilt by a build with a higher one
# ("none" -> "fast" -> "llm"); a higher one is kept (a fast build keeps LLM extractions)
EXTRACT_RANK = {"none": 0, "fast": 1, "llm": 2}
REJECTED = (QueryFailedError, QueryParameterError)  # the store refused one query's data
GRAPH_KEYS = ("entities", "triplets")  # a write row's lists of graph items
T = TypeVar("T")


@dataclass
class _Planned:
    document: SourceDocument
    changed: bool
    chunks: list[Chunk] = field(default_factory=list)


class BuildPipeline:
    """Builds the corpus side of the graph in a store."""

    def __init__(
        self,
        store: GraphStore,
        embedder: Embedder,
        llm: LLM | None,
        options: BuildOptions,
        progress: Progress | None = None,
    ) -> None:
        options.check()
        options, llm = settle_extract(options, llm)
        if options.extract == "llm" and llm is None:
            raise ConfigError(
                "no LLM is configured for extraction: run scripts/fetch_model.py for the "
                "offline model, set GRAPHMIND_LLM_BASE_URL and GRAPHMIND_LLM_MODEL, or build "
                "a chunk-only index with --extract none"
            )
        self.store = store
        self.embedder = embedder
        self.llm = llm
        self.options = options
        self.progress = progress or NoProgress()
        self.report = BuildReport()
        self._cpu_started = time.process_time()
        self.fast = FastExtractor(options.fast_model) if options.extract == "fast" else None
        self.extract_mode = self._extract_mode()
        self.report.extraction = self.extract_mode
        self._writing: list[_Planned] = []  # the batch whose write may be in flight
        self._processed = 0  # planned documents written, found written, or refused
        self._advanced = 0  # of those, shown on the progress bar
        # entity vectors this build embedded (float32), for the link stage's exact search
        # to read only the others; dropped when the store outgrows the exact search
        self._entity_vectors: dict[str, array[float]] | None = {}
        # the last batch's, whose write may be in flight: a weak fact's names (see embed)
        self._last_entities: dict[str, Sequence[float]] = {}

    def _extract_mode(self) -> str:
        """What each document records as its ``extract_mode``: ``none``,
        ``fast:PACKAGE-VERSION`` or ``llm:MODEL``."""
        if self.fast is not None:
            return f"fast:{self.fast.model_id}"
        if self.options.extract == "none" or self.llm is None:
            return "none"
        return f"llm:{self.llm.model_id}"

    @property
    def _extract_label(self) -> str:
        return "chunks parsed" if self.fast is not None else "LLM calls"

    @contextmanager
    def _stage(self, name: str) -> Iterator[None]:
        """Add the block's wall seconds to ``report.seconds[name]`` and the process's CPU
        seconds (every thread's: a write in flight on another thread counts too) to
        ``report.cpu_seconds[name]``."""
        started, cpu = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            seconds, cpu_seconds = self.report.seconds, self.report.cpu_seconds
            seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - started
            cpu_seconds[name] = cpu_seconds.get(name, 0.0) + time.process_time() - cpu

    # -- the pipeline, top-down ---------------------------------------------------
    def run(self, paths: Sequence[str]) -> BuildReport:
        """Build ``paths`` into the store; safe to interrupt and re-run."""
        started = time.perf_counter()
        planned: list[_Planned] = []
        try:
            documents = self.load(paths)
            planned = self.plan(documents)
            self.chunk(planned)
            self.progress.start("documents", len(planned))
            if self.extract_mode != "none":
                self.progress.start(self._extract_label, sum(len(p.chunks) for p in planned))
            if self.store.concurrent:  # leaving the block waits for a write in flight
                with ThreadPoolExecutor(1, thread_name_prefix="graphmind-write") as writer:
                    self.batches(planned, writer)
            else:
                self.batches(planned, _InTurn())
            self.link()
        except KeyboardInterrupt:  # what is written is whole; a re-run resumes
            self.report.interrupted = True
            self._settle_interrupted_write()
            self.report.documents_not_reached = len(planned) - self._processed
        self.finish(started)
        return self.report

    def batches(self, planned: Sequence[_Planned], writer: Executor) -> None:
        """Extract, embed and write each batch; a batch's write runs while the next batch is
        extracted and embedded (its entities and triplets count as having vectors then,
        and are checked again when the write refused a document)."""
        writing: Future[int] | None = None
        coming: set[str] = set()
        for batch in iter_batches(planned, self.options.batch_docs):
            rows = self.rows(batch, self.extract(batch))
            self.embed(rows, coming)
            if writing is not None and self._written(writing):
                self.embed(rows)  # what the refused documents would have brought
            self.detach_replaced(batch)
            coming = {item["id"] for r in rows for key in GRAPH_KEYS for item in r[key]}
            writing = writer.submit(self.write, batch, rows)
        if writing is not None:
            self._written(writing)

    def _written(self, writing: Future[int]) -> int:
        """Wait for a batch's write; how many of its documents the store refused."""
        refused = writing.result()
        self.progress.advance("documents", self._processed - self._advanced)
        self._advanced = self._processed
        return refused

    def load(self, paths: Sequence[str]) -> list[SourceDocument]:
        """Read the corpus."""
        with self._stage("load"):
            result = load_paths(paths, self.options.load)
        self.report.load_failures = list(result.failures)
        self.report.notes = result.notes
        self.report.empty_paths = result.empty_paths
        docs = result.documents
        return docs[: self.options.limit] if self.options.limit is not None else docs

    def plan(self, documents: Sequence[SourceDocument]) -> list[_Planned]:
        """Skip documents already built the same way; mark changed ones."""
        with self._stage("plan"):
            states: dict[str, dict[str, Any]] = {}
            sources = [d.source for d in documents]
            for batch in iter_batches(sources, PLAN_BATCH):
                for row in self.store.run("build/document_states", {"sources": batch}):
                    states[row["source"]] = row
        planned = []
        for doc in documents:
            state = states.get(doc.source)
            if state is not None and state["id"] == doc.id and not self._upgrades(state):
                self.report.documents_skipped += 1
                continue
            planned.append(_Planned(doc, changed=state is not None))
        self.report.documents_planned = len(planned)
        return planned

    def _upgrades(self, state: Mapping[str, Any]) -> bool:
        """True when this build extracts more than what built the document (see
        ``EXTRACT_RANK``): a chunk-only document is rebuilt by a fast or LLM build, a
        fast one by an LLM build."""
        built = str(state["extract_mode"] or "none").split(":", 1)[0]
        mine = self.extract_mode.split(":", 1)[0]
        return EXTRACT_RANK.get(built, 0) < EXTRACT_RANK.get(mine, 0)

    def chunk_size(self) -> int:
        """The chunk size this build uses (see :func:`chunk_size_for`)."""
        return chunk_size_for(self.options, self.embedder)

    def chunk(self, planned: Sequence[_Planned]) -> None:
        """Split each document into chunks (all of them first: progress totals are known)."""
        if not planned:
            return
        size = self.report.chunk_size = self.chunk_size()
        with self._stage("chunk"):
            for item in planned:
                doc = item.document
                item.chunks = chunk_text(
                    doc.id, doc.text, size, self.options.chunk_overlap, doc.sections
                )

    def extract(self, batch: Sequence[_Planned]) -> dict[str, ChunkExtraction]:
        """One extraction per chunk: by spaCy (``fast``), or by the LLM (cached, so re-runs
        cost nothing)."""
        if self.extract_mode == "none":
            return {}
        texts = [
            ChunkText(c.id, item.document.title, c.text) for item in batch for c in item.chunks
        ]
        done = counter(self.progress, self._extract_label)
        with self._stage("extract"):
            if self.fast is not None:
                results = self.fast.extract_chunks(texts, on_done=done)
            elif self.llm is not None:
                results = extract_chunks(self.llm, texts, on_done=done)
            else:
                return {}
        return {r.chunk_id: r for r in results}

    def rows(
        self, batch: Sequence[_Planned], extractions: dict[str, ChunkExtraction]
    ) -> list[dict[str, Any]]:
        """The write rows: one per document, with chunks, entities and triplets."""
        out = []
        # the first mention in document order defines an entity's (or triplet's) attributes
        # for the whole batch, so the graph does not depend on row order inside a query
        first_entity: dict[str, EntityRow] = {}
        first_triplet: dict[str, TripletRow] = {}
        for item in batch:
            doc = item.document
            results = [extractions[c.id] for c in item.chunks if c.id in extractions]
            entities, triplets = graph_rows(results)
            entities = [first_entity.setdefault(e.id, e) for e in entities]
            triplets = [_same_facts(first_triplet.setdefault(t.id, t), t) for t in triplets]
            status = {r.chunk_id: r.status for r in results}
            for value in status.values():
                self.report.chunks_failed += value.startswith("failed")
                self.report.chunks_empty += value == "empty"
            row = {
                "id": doc.id,
                "source": doc.source,
                "title": doc.title,
                "sha256": doc.sha256,
                "extract_mode": self.extract_mode,
                "chunks": [
                    {
                        "id": c.id,
                        "text": c.text,
                        "position": c.position,
                        "tokens": c.tokens,
                        "extraction": status.get(c.id, "skipped"),
                        "embedding": None,
                        "embed_text": _with_title(doc.title, c.text),
                    }
                    for c in item.chunks
                ],
                "next": [[a.id, b.id] for a, b in pairwise(item.chunks)],
                "entities": [{**asdict(e), "embedding": None} for e in entities],
                "triplets": [t.as_row(context=True) for t in triplets],
            }
            out.append(_clean_row(row))
            self.report.entities_in_batches += len(entities)
            self.report.triplets_in_batches += len(triplets)
        return out

    def embed(self, rows: list[dict[str, Any]], coming: Collection[str] = ()) -> None:
        """Embed chunks, and entities and triplets that neither the store nor the write in
        flight (``coming``) has a vector for; what is embedded already is not again. A
        weak fact is read from its chunk's pass (``fact_vectors = "sentence"``)."""
        with self._stage("embed"):
            contexts = {
                t["id"]: t.pop("context") for row in rows for t in row["triplets"] if "context" in t
            }
            chunks = [
                (c, c.pop("embed_text")) for row in rows for c in row["chunks"] if "embed_text" in c
            ]
            graph = [
                t for t in new_graph_items(self.store, rows, coming) if t[0]["embedding"] is None
            ]
            reads: list[SentenceRead] = []
            if self.options.fact_vectors == "sentence":
                reads, graph = sentence_reads(chunks, graph, contexts)
            unique = list(dict.fromkeys(text for _, text in [*chunks, *graph]))
            self.progress.start("embeddings", len(unique))
            advance = partial(self.progress.advance, "embeddings")
            vectors, missed = embed_texts(self.embedder, unique, reads, advance)
            if missed:  # their sentence was not read: their own text is
                graph += [(r.item, triplet_text(r.item)) for r in missed]
                more = list(dict.fromkeys(text for _, text in graph if text not in vectors))
                vectors.update(embed_texts(self.embedder, more, [])[0])
                unique += more
            for target, text in [*chunks, *graph]:
                target["embedding"] = vectors[text]
            taken = {id(r.item) for r in missed}
            read = [r for r in reads if id(r.item) not in taken]
            embedded = {
                e["id"]: e["embedding"]
                for row in rows
                for e in row["entities"]
                if e["embedding"] is not None
            }
            if read:
                join_names(read, self._name_vectors(embedded, read))
            self.report.embedded_texts += len(unique)
            self.report.sentence_vectors += len(read)
            self._keep_entity_vectors(embedded)

    def _name_vectors(
        self, embedded: Mapping[str, Sequence[float]], reads: Sequence[SentenceRead]
    ) -> dict[str, Sequence[float]]:
        """The vectors of the entities the reads' facts join: this batch's
        (``embedded``), the last batch's (its write may be in flight), the others this
        build embedded, and the store's for the rest."""
        wanted = {r.item[k] for r in reads for k in ("subject_id", "object_id")}
        found: dict[str, Sequence[float]] = {}
        for known in (embedded, self._last_entities, self._entity_vectors or {}):
            found.update({i: known[i] for i in wanted - found.keys() if i in known})
        found.update(read_entity_vectors(self.store, sorted(wanted - found.keys())))
        return found

    def _keep_entity_vectors(self, embedded: dict[str, Sequence[float]]) -> None:
        """Remember the entity vectors just embedded (by id): the batch's, and this
        build's up to the exact search's limit."""
        self._last_entities = embedded
        kept = self._entity_vectors
        if kept is None:
            return
        for entity, vector in embedded.items():
            kept[entity] = array("f", vector)
        if len(kept) > EXACT_LINK_LIMIT:
            self._entity_vectors = None

    def detach_replaced(self, batch: Sequence[_Planned]) -> None:
        """Remove the reasoning edges (and other non-structural relationships) of changed
        documents' old chunks in bounded transactions, before the atomic rewrite."""
        docs = [{"source": i.document.source, "id": i.document.id} for i in batch if i.changed]
        if docs:
            with self._stage("write"):
                self.store.drain("build/detach_replaced", DELETE_BATCH, {"docs": docs})

    def write(self, batch: Sequence[_Planned], rows: list[dict[str, Any]]) -> int:
        """One atomic query for the batch (old versions replaced in the same query). When
        the store refuses the batch, each document is written alone, and one it refuses
        is reported and left out; returns how many were."""
        with self._stage("write"):
            try:
                self._write(batch, rows)
                return 0
            except REJECTED as exc:
                if len(rows) == 1:
                    self._refused(batch[0], exc)
                    return 1
                refused = 0
                for item, row in zip(batch, rows, strict=True):
                    try:
                        self._write([item], [row])
                    except REJECTED as one:
                        self._refused(item, one)
                        refused += 1
                return refused

    def _write(self, batch: Sequence[_Planned], rows: list[dict[str, Any]]) -> None:
        """Write and count what the query says it created (not what was planned)."""
        self._writing = list(batch)
        try:
            written = self.store.run("build/write_documents", {"rows": rows}, write=True)
        except REJECTED:
            self._writing = []
            raise
        self._writing = []
        created = {r["id"]: bool(r["created"]) for r in written}
        for item, row in zip(batch, rows, strict=True):
            self._processed += 1
            if not created.get(item.document.id, False):
                self.report.documents_elsewhere += 1
            elif item.changed:
                self.report.documents_changed += 1
            else:
                self.report.documents_new += 1
            if created.get(item.document.id, False):
                self.report.chunks_written += len(row["chunks"])

    def _refused(self, item: _Planned, exc: Exception) -> None:
        self._processed += 1
        self.report.load_failures.append(LoadFailure(item.document.source, f"not written: {exc}"))

    def _settle_interrupted_write(self) -> int:
        """After Ctrl-C during a write, ask the store which documents of that batch got in
        (the query may have finished on the server) and count them; returns how many
        documents of the batch are settled."""
        batch, self._writing = self._writing, []
        if not batch:
            return 0
        try:
            rows = self.store.run(
                "build/document_states", {"sources": [p.document.source for p in batch]}
            )
        except GraphMindError:  # the store cannot say now: count nothing we cannot see
            return 0
        there = {r["source"]: r["id"] for r in rows}
        settled = 0
        for item in batch:
            if there.get(item.document.source) == item.document.id:
                settled += 1
                if item.changed:
                    self.report.documents_changed += 1
                else:
                    self.report.documents_new += 1
                self.report.chunks_written += len(item.chunks)
        self._processed += settled
        return settled

    def link(self) -> None:
        """Resolve near-duplicates, sweep orphans, rebuild RELATED for pending entities.
        SAME_AS links change neither triplets nor RELATED, so on a store that takes
        concurrent queries the markers are settled while the near-duplicates are found."""
        with self._stage("link"):
            pending = self.store.run("build/pending_entities")
            named = [r for r in pending if r["name"] is not None]
            if self.options.resolve == "link" and self.store.concurrent and named:
                with ThreadPoolExecutor(1, thread_name_prefix="graphmind-link") as settler:
                    settling = settler.submit(settle_pending, self.store, self.progress, pending)
                    pairs = self.same_as_pairs(named)
                    self.report.orphans_deleted += settling.result()
                self.link_same_as(pairs)
                return
            if self.options.resolve != "off":
                self.resolve(named)
                if self.report.entities_merged:  # merges move and drop markers
                    pending = self.store.run("build/pending_entities")
            self.report.orphans_deleted += settle_pending(self.store, self.progress, pending)

    def resolve(self, pending: list[Row]) -> None:
        """Link (or merge) pending entities (their id, name and type) to near-duplicates."""
        pairs = self.same_as_pairs(pending)
        if self.options.resolve != "merge":
            self.link_same_as(pairs)
            return
        gone: set[str] = set()
        for duplicate, keep in sorted(pairs):
            if duplicate in gone or keep in gone:
                continue
            self.store.run(
                "build/merge_entity",
                {"rows": [{"duplicate": duplicate, "keep": keep}]},
                write=True,
            )
            gone.add(duplicate)
            self.report.entities_merged += 1

    def link_same_as(self, pairs: Mapping[tuple[str, str], dict[str, Any]]) -> None:
        """Write a SAME_AS link for each near-duplicate pair."""
        if pairs:
            self.store.write_rows("build/link_same_as", list(pairs.values()))
            self.report.same_as_links += len(pairs)

    def same_as_pairs(self, pending: list[Row]) -> dict[tuple[str, str], dict[str, Any]]:
        """Pending entities' near-duplicates (``linking.same_as_pairs``)."""
        return same_as_pairs(
            self.store,
            pending,
            self.options.same_as_similarity,
            self.options.same_as_name_ratio,
            known=self._entity_vectors,
        )

    def finish(self, started: float) -> None:
        """Totals for the summary."""
        self.report.seconds["total"] = time.perf_counter() - started
        self.report.cpu_seconds["total"] = time.process_time() - self._cpu_started
        if self.llm is not None:
            self.report.llm = self.llm.ledger.as_dict()
        try:
            counts = self.store.counts()
            self.report.relationships = self.store.relationship_count()
        except GraphMindError as exc:
            if not self.report.interrupted:
                raise
            self.report.warnings.append(f"could not read the store's counts: {exc}")
        else:
            self.report.counts = {k: counts[k] for k in ("Document", "Chunk", "Entity", "Triplet")}
        size = self.options.chunk_size
        if size is not None and self.report.documents_planned:
            limit = getattr(self.embedder, "max_tokens", None)
            if isinstance(limit, int) and size > limit:
                self.report.warnings.append(
                    f"chunks of up to {size} tokens are longer than what the embedder "
                    f"reads ({limit} tokens); consider --chunk-size {limit}"
                )


class _InTurn(Executor):
    """Runs each task when it is submitted (a store that takes one writer at a time)."""

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        done: Future[T] = Future()
        try:
            done.set_result(fn(*args, **kwargs))
        except Exception as exc:
            done.set_exception(exc)
        return done


def chunk_size_for(options: BuildOptions, embedder: object) -> int:
    """The chunk size asked for, or the default: 512 tokens, or what the embedder reads
    when that is less."""
    if options.chunk_size is not None:
        return options.chunk_size
    limit = getattr(embedder, "max_tokens", None)
    if isinstance(limit, int) and MIN_CHUNK_TOKENS <= limit < DEFAULT_CHUNK_SIZE:
        return max(limit, options.chunk_overlap + MIN_CHUNK_TOKENS)
    return DEFAULT_CHUNK_SIZE


def settle_pending(
    store: GraphStore, progress: Progress | None = None, pending: list[Row] | None = None
) -> int:
    """For every entity with a ``:Pending`` marker (``pending``: the markers, when just
    read): delete its triplets no chunk mentions and, when none is left, the entity;
    rebuild its RELATED edges; drop the marker. Returns how many entities were deleted."""
    progress = progress or NoProgress()
    deleted = 0
    if pending is None:
        pending = store.run("build/pending_entities")
    progress.start("linking", len(pending))
    # with communities written, note what changes for an incremental community run
    marking = bool(pending) and has_communities(store)
    for batch in iter_batches(pending, LINK_BATCH):
        swept = [r["id"] for r in batch if r["sweep"]]  # only these can lose triplets
        if swept:
            rows = store.run("build/sweep_orphans", {"ids": swept}, write=True)
            deleted += int(rows[0]["deleted"]) if rows else 0
        ids = [r["id"] for r in batch]
        if marking:
            mark_changed(store, ids)  # the next community run recomputes only around them
        store.run("build/refresh_related", {"ids": ids}, write=True)
        progress.advance("linking", len(batch))
    return deleted


def _same_facts(first: TripletRow, row: TripletRow) -> TripletRow:
    """``row`` (with its own chunk mentions) carrying the first mention's attributes."""
    return replace(
        row,
        description=first.description,
        event_time=first.event_time,
        subject=first.subject,
        object=first.object,
    )


def _clean_row(value: Any) -> Any:
    """Every string of a write row without control characters (an LLM can answer with a
    NUL in an entity name; FalkorDB cannot parse one in a parameter)."""
    if isinstance(value, str):
        return clean_text(value)[0]
    if isinstance(value, dict):
        return {k: v if k == "embedding" else _clean_row(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean_row(v) for v in value]
    return value


def _with_title(title: str, text: str) -> str:
    return text if not title or text.startswith(title) else f"{title}\n{text}"
