"""The episodic layer for long narratives (ComoRAG): consecutive chunks of a document,
grouped into windows, each summarised once and embedded like a community summary.

Episode ids hash the document and the window's first and last chunk, so a re-run on
unchanged documents finds every episode already there and changes nothing. A rebuilt
document gets new chunk ids: its old episodes then cover nothing and are deleted.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, field_validator

from graphmind.core.ids import digest
from graphmind.core.text import sentence_spans
from graphmind.store.base import DELETE_BATCH, GraphStore, iter_batches

if TYPE_CHECKING:
    from graphmind.core.progress import Progress
    from graphmind.embed import Embedder
    from graphmind.llm import LLM

TASK = "episode"
PROMPT_FILE = Path(__file__).with_name("episode.prompt.md")
MAX_SUMMARY_CHARS = 1500
MAX_INPUT_CHARS = 6000
BATCH = 256  # episodes summarised, embedded and written together
READ_BATCH = 500  # documents (or ids) per read query
TEXT_BATCH = 2000  # chunk texts per read query
MAX_TITLE_CHARS = 200  # the document title in the prompt, cut
PASSAGE_MARK_CHARS = 8  # room each passage's "[i] " and separator take in the budget
# Chunks per episode by document length: up to n chunks, windows of w (ComoRAG's sizes);
# longer documents get floor(2 log2 n), between the last size and MAX_WINDOW.
WINDOW_SIZES = ((20, 3), (50, 5), (100, 8), (200, 10))
MAX_WINDOW = 20
LLM_STATUS, EXTRACTIVE_STATUS = "llm", "extractive"


class EpisodeSummary(BaseModel):
    """What the LLM writes about one episode."""

    summary: str = Field(min_length=1, max_length=MAX_SUMMARY_CHARS)

    @field_validator("summary", mode="before")
    @classmethod
    def _trim(cls, value: Any) -> Any:
        if isinstance(value, str):
            return cap(" ".join(value.split()), MAX_SUMMARY_CHARS)
        return value


@dataclass
class EpisodeStats:
    """What an episodic run did. ``new`` counts the episodes written (new ones, and
    extractive summaries redone now that an LLM is given)."""

    documents: int = 0
    episodes: int = 0
    new: int = 0
    unchanged: int = 0
    deleted: int = 0
    summarised: int = 0
    fallbacks: int = 0
    seconds: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Episode:
    """One planned window: ``start``/``end`` are the positions (in chunk order, 0-based,
    inclusive) of its first and last chunk; ``previous``/``next`` its neighbours' ids."""

    id: str
    document_id: str
    title: str
    chunks: tuple[str, ...]
    start: int
    end: int
    total: int
    previous: str | None
    next: str | None


def window_size(n: int) -> int:
    """Chunks per episode for a document of ``n`` chunks."""
    if n < 1:
        raise ValueError("a document needs at least one chunk")
    for most, size in WINDOW_SIZES:
        if n <= most:
            return size
    two_log2 = (n * n).bit_length() - 1  # floor(2 log2 n), exactly
    return min(MAX_WINDOW, max(WINDOW_SIZES[-1][1], two_log2))


def windows(n: int) -> list[tuple[int, int]]:
    """Consecutive, non-overlapping ``(start, end)`` windows (end exclusive) over ``n``
    chunks; the last may be shorter."""
    if n < 1:
        return []
    size = window_size(n)
    return [(start, min(start + size, n)) for start in range(0, n, size)]


def plan_document(document_id: str, title: str, chunk_ids: Sequence[str]) -> list[Episode]:
    """The episodes of one document, its chunk ids given in order."""
    spans = windows(len(chunk_ids))
    ids = [digest("episode", document_id, chunk_ids[a], chunk_ids[b - 1]) for a, b in spans]
    return [
        Episode(
            id=ids[i],
            document_id=document_id,
            title=title,
            chunks=tuple(chunk_ids[a:b]),
            start=a,
            end=b - 1,
            total=len(chunk_ids),
            previous=ids[i - 1] if i else None,
            next=ids[i + 1] if i + 1 < len(ids) else None,
        )
        for i, (a, b) in enumerate(spans)
    ]


def build_episodes(
    store: GraphStore,
    embedder: Embedder,
    llm: LLM | None,
    *,
    document_ids: Sequence[str] | None = None,
    progress: Progress | None = None,
) -> EpisodeStats:
    """Cut every document (or those of ``document_ids``; unknown ids are ignored) into
    episodes, summarise, embed and write the ones not done yet.

    Without an LLM, or when its answer stays invalid, an episode gets an extractive
    summary; a later run with an LLM summarises those again.
    """
    stats = EpisodeStats()
    started = time.perf_counter()
    stats.deleted = store.drain("episode/delete_uncovered", DELETE_BATCH)
    ids = (
        list(dict.fromkeys(document_ids))
        if document_ids is not None
        else [r["id"] for r in store.run("episode/documents")]
    )
    todo: list[Episode] = []
    for batch in iter_batches(ids, READ_BATCH):
        planned = _plan(store, batch)
        stats.documents += len({e.document_id for e in planned})
        stats.episodes += len(planned)
        existing = {r["id"]: r for r in store.run("episode/existing", {"ids": list(batch)})}
        stale = sorted(set(existing) - {e.id for e in planned})
        if stale:
            rows = store.run("episode/delete_episodes", {"ids": stale}, write=True)
            stats.deleted += int(rows[0]["deleted"])
        todo += [e for e in planned if not _done(existing.get(e.id), llm)]
    stats.new, stats.unchanged = len(todo), stats.episodes - len(todo)
    stats.seconds["plan"] = time.perf_counter() - started

    if progress is not None and todo:
        progress.start("episodes", len(todo))
    for batch in iter_batches(todo, BATCH):
        rows = _summarise(store, embedder, llm, batch, stats, progress)
        t0 = time.perf_counter()
        store.write_rows("episode/write_episodes", rows, batch_size=len(rows))
        _add(stats, "write", t0)
    stats.seconds["total"] = time.perf_counter() - started
    return stats


def episode_counts(store: GraphStore) -> dict[str, int]:
    """Episodes in the store per summary status."""
    return {str(r["summary_status"]): int(r["episodes"]) for r in store.run("episode/counts")}


def _plan(store: GraphStore, document_ids: Sequence[str]) -> list[Episode]:
    """The episodes of these documents, from their chunks in position order."""
    chunks: dict[str, list[tuple[int, str]]] = defaultdict(list)
    titles: dict[str, str] = {}
    for r in store.run("episode/document_chunks", {"ids": list(document_ids)}):
        chunks[r["document"]].append((int(r["position"] or 0), r["chunk"]))
        titles[r["document"]] = r["title"] or ""
    planned: list[Episode] = []
    for document_id in sorted(chunks):
        ordered = [chunk_id for _, chunk_id in sorted(chunks[document_id])]
        planned += plan_document(document_id, titles[document_id], ordered)
    return planned


def _done(existing: dict[str, Any] | None, llm: LLM | None) -> bool:
    """Whether an episode is summarised well enough to skip."""
    if existing is None or not existing["summarised"]:
        return False
    return llm is None or existing["summary_status"] != EXTRACTIVE_STATUS


def _summarise(
    store: GraphStore,
    embedder: Embedder,
    llm: LLM | None,
    batch: Sequence[Episode],
    stats: EpisodeStats,
    progress: Progress | None,
) -> list[dict[str, Any]]:
    """Summaries (LLM, else extractive) of a batch of episodes, embedded, as write rows."""
    t0 = time.perf_counter()
    wanted = sorted({c for e in batch for c in e.chunks})
    texts: dict[str, str] = {}
    for ids in iter_batches(wanted, TEXT_BATCH):
        for r in store.run("episode/chunk_texts", {"ids": list(ids)}):
            texts[r["id"]] = r["text"] or ""
    passages = [fresh_passages([texts.get(c, "") for c in e.chunks]) for e in batch]
    summaries: list[str | None] = [None] * len(batch)
    if llm is not None:
        outputs = llm.structured_many(
            TASK,
            [messages_for(e, p) for e, p in zip(batch, passages, strict=True)],
            EpisodeSummary,
            on_done=_advance(progress),
        )
        for i, output in enumerate(outputs):
            if isinstance(output, EpisodeSummary):
                summaries[i] = output.summary
    elif progress is not None:
        progress.advance("episodes", len(batch))
    _add(stats, "summarise", t0)

    t0 = time.perf_counter()
    final = [s or extractive_summary(p) for s, p in zip(summaries, passages, strict=True)]
    vectors = embedder.embed(
        [embedding_text(e.title, s) for e, s in zip(batch, final, strict=True)]
    )
    _add(stats, "embed", t0)
    rows = []
    for e, summary, vector, generated in zip(batch, final, vectors, summaries, strict=True):
        stats.summarised += generated is not None
        stats.fallbacks += generated is None
        rows.append(
            {
                "id": e.id,
                "document_id": e.document_id,
                "start": e.start,
                "end": e.end,
                "chunks": list(e.chunks),
                "previous": e.previous,
                "next": e.next,
                "summary": summary,
                "summary_status": LLM_STATUS if generated is not None else EXTRACTIVE_STATUS,
                "embedding": vector,
            }
        )
    return rows


def _advance(progress: Progress | None) -> Callable[[int], None]:
    """An ``on_done`` that turns the cumulative count of finished items into increments."""
    done = 0

    def report(finished: int) -> None:
        nonlocal done
        if progress is not None:
            progress.advance("episodes", finished - done)
        done = finished

    return report


def _add(stats: EpisodeStats, stage: str, t0: float) -> None:
    stats.seconds[stage] = stats.seconds.get(stage, 0.0) + time.perf_counter() - t0


# -- text: prompt input, extractive fallback, embedding text ---------------------------


@cache
def system_prompt() -> str:
    """The episode summarisation instructions."""
    return PROMPT_FILE.read_text(encoding="utf-8").strip()


def fresh_passages(texts: Sequence[str]) -> list[str]:
    """Each chunk's text without the leading sentences it repeats from the chunk before
    (chunks overlap by whole sentences)."""
    out = []
    previous = ""
    for text in texts:
        spans = sentence_spans(text)
        start = next((a for a, b in spans if text[a:b] not in previous), None)
        out.append(text[start:].strip() if start is not None and previous else text.strip())
        previous = text
    return out


def messages_for(episode: Episode, passages: Sequence[str]) -> list[dict[str, str]]:
    """The chat messages for one episode, its passages cut to a shared character budget."""
    where = f"passages {episode.start + 1} to {episode.end + 1} of {episode.total}"
    title = cap(episode.title or episode.document_id, MAX_TITLE_CHARS)
    header = f"Document: {title}\nThe {where}, in order:\n"
    budget = max(len(passages), MAX_INPUT_CHARS - len(header))
    limit = fair_share([len(p) for p in passages], budget - PASSAGE_MARK_CHARS * len(passages))
    body = "\n\n".join(f"[{i}] {cap(p, limit)}" for i, p in enumerate(passages, start=1))
    return [
        {"role": "system", "content": system_prompt()},
        {"role": "user", "content": header + "\n" + body},
    ]


def fair_share(lengths: Sequence[int], budget: int) -> int:
    """The largest per-item cap so that the capped lengths fit ``budget`` (short items
    leave their unused share to the long ones)."""
    budget = max(budget, len(lengths))
    if sum(lengths) <= budget:
        return max(lengths, default=0)
    remaining, items = budget, sorted(lengths)
    for i, length in enumerate(items):
        share = remaining // (len(items) - i)
        if length > share:
            return max(1, share)
        remaining -= length
    return max(items)


def cap(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at a word boundary, marked with "…"."""
    if len(text) <= limit:
        return text
    if limit <= 1:
        return text[:limit]
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def extractive_summary(passages: Sequence[str]) -> str:
    """The first sentence of each passage, joined and capped: the summary without an LLM."""
    firsts = []
    for passage in passages:
        spans = sentence_spans(passage)
        if spans:
            a, b = spans[0]
            firsts.append(" ".join(passage[a:b].split()))
    summary = cap(" ".join(firsts), MAX_SUMMARY_CHARS)
    return summary or "(empty passages)"


def embedding_text(title: str, summary: str) -> str:
    """What an episode is embedded as: its document's title and its summary."""
    return f"{title}\n{summary}" if title else summary
