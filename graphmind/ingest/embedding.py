"""The build's embed stage: one forward pass per text, and the weak facts read from
their chunk's pass instead of one of their own.

A weak fact of ``--extract fast`` (two names in one sentence, no verb between them:
"Ulm related to Germany", the document's topic "related to" what its sentences name)
is most of a fast graph's triplets (69 % on 2Wiki passages). With ``[build] fact_vectors
= "sentence"`` its vector is instead the mean of the chunk's last hidden states over its
sentence (late chunking: what the sentence says, read in the context of the chunk, with
no pass of its own), joined with the mean of its two names' vectors (which two names it
joins, from vectors the build has anyway): ``join_names``. The chunk's own vector is
the same either way.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graphmind.embed.base import SpanEmbedder, unit_mean
from graphmind.store.base import iter_batches

if TYPE_CHECKING:
    from graphmind.embed import Embedder

EMBED_BATCH = 256  # texts per embedder call
# a weak fact's names against its sentence: on LoCoMo's conversation, where every turn
# names the same two speakers, the sentence alone lost recall (docs/extract-fast.md)
NAME_WEIGHT = 2.0
Target = tuple[dict[str, Any], str]  # a write row's item, and the text it is embedded as


@dataclass(frozen=True)
class SentenceRead:
    """A fact whose vector is read from a chunk's pass: the chunk's embedded text and
    where the fact's sentence is in it."""

    item: dict[str, Any]
    text: str
    start: int
    end: int


def sentence_reads(
    chunks: Sequence[Target], graph: Sequence[Target], contexts: Mapping[str, Sequence[str]]
) -> tuple[list[SentenceRead], list[Target]]:
    """The graph items whose ``contexts`` entry (chunk id, sentence) names a chunk
    embedded now whose text holds the sentence, and the other items (embedded by their
    own text)."""
    texts = {item["id"]: text for item, text in chunks}
    reads: list[SentenceRead] = []
    rest: list[Target] = []
    for item, own in graph:
        chunk_id, sentence = contexts.get(item["id"], ("", ""))
        text = texts.get(chunk_id)
        at = text.find(sentence) if text is not None and sentence.strip() else -1
        if text is not None and at >= 0:
            reads.append(SentenceRead(item, text, at, at + len(sentence)))
        else:
            rest.append((item, own))
    return reads, rest


def embed_texts(
    embedder: Embedder,
    texts: Sequence[str],
    reads: Sequence[SentenceRead],
    on_batch: Callable[[int], None] | None = None,
) -> tuple[dict[str, list[float]], list[SentenceRead]]:
    """The vector of each text; each read's item gets its sentence's vector from its
    text's pass (``embedder.embed_spans``). Returns the vectors and the reads that got
    none (their sentence beyond the tokens the model reads, or an embedder that reads no
    spans)."""
    if not isinstance(embedder, SpanEmbedder):
        return _embed(embedder, texts, on_batch), list(reads)
    by_text: dict[str, list[SentenceRead]] = defaultdict(list)
    for read in reads:
        by_text[read.text].append(read)
    vectors: dict[str, list[float]] = {}
    missed: list[SentenceRead] = []
    for batch in iter_batches(list(texts), EMBED_BATCH):
        if any(t in by_text for t in batch):
            spans = [[(r.start, r.end) for r in by_text.get(t, [])] for t in batch]
            out, pooled = embedder.embed_spans(batch, spans)
            for text, span_vectors in zip(batch, pooled, strict=True):
                for read, vector in zip(by_text.get(text, []), span_vectors, strict=True):
                    if vector is None:
                        missed.append(read)
                    else:
                        read.item["embedding"] = vector
        else:
            out = embedder.embed(batch)
        vectors.update(zip(batch, out, strict=True))
        if on_batch is not None:
            on_batch(len(batch))
    return vectors, missed


def _embed(
    embedder: Embedder, texts: Sequence[str], on_batch: Callable[[int], None] | None
) -> dict[str, list[float]]:
    vectors: dict[str, list[float]] = {}
    for batch in iter_batches(list(texts), EMBED_BATCH):
        vectors.update(zip(batch, embedder.embed(batch), strict=True))
        if on_batch is not None:
            on_batch(len(batch))
    return vectors


def join_names(
    reads: Sequence[SentenceRead], entity_vectors: Mapping[str, Sequence[float]]
) -> None:
    """Each read fact's vector becomes what its sentence says and which two names it
    joins: the unit mean of its sentence's vector and, ``NAME_WEIGHT`` times, the unit
    mean of its two names' vectors (``entity_vectors`` by entity id). A fact with a name
    not in ``entity_vectors`` keeps its sentence's vector."""
    for read in reads:
        ends = [entity_vectors.get(read.item[k]) for k in ("subject_id", "object_id")]
        sentence = read.item.get("embedding")
        if sentence is None or ends[0] is None or ends[1] is None:
            continue
        names = unit_mean([ends[0], ends[1]])
        vector = unit_mean([sentence, names], [1.0, NAME_WEIGHT]) if names else None
        if vector is not None:
            read.item["embedding"] = vector
