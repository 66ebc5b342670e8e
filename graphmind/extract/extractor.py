"""Run extraction over chunks and turn the output into entity and triplet rows."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphmind.extract.grounding import ground
from graphmind.extract.models import Extraction
from graphmind.extract.normalize import entity_id, normalize_name, normalize_predicate, triplet_id

if TYPE_CHECKING:
    from graphmind.llm import LLM

PROMPT_FILE = Path(__file__).with_name("extraction.prompt.md")
TASK = "extract"


@dataclass(frozen=True)
class ChunkText:
    """What extraction sees of a chunk."""

    id: str
    title: str
    text: str


@dataclass
class EntityRow:
    """An entity as written to the graph."""

    id: str
    name: str
    type: str
    description: str


@dataclass
class TripletRow:
    """A triplet as written to the graph, with the chunks that state it."""

    id: str
    subject: str
    predicate: str
    object: str
    description: str
    event_time: str | None
    subject_id: str
    object_id: str
    chunk_ids: list[str] = field(default_factory=list)
    context: tuple[str, str] | None = None  # a weak relation's (chunk id, sentence)

    @property
    def text(self) -> str:
        """The fact as one line of text."""
        return f"{self.subject} {self.predicate} {self.object}"

    def as_row(self, *, context: bool = False) -> dict[str, Any]:
        """The write row's triplet (no vector yet); with ``context``, its (chunk id,
        sentence) when it has one, for the embed stage to take out."""
        row = {k: v for k, v in asdict(self).items() if k != "context"}
        row.update(text=self.text, embedding=None)
        if context and self.context is not None:
            row["context"] = list(self.context)
        return row


@dataclass
class ChunkExtraction:
    """Outcome for one chunk: ``status`` is ok, empty or ``failed: reason``."""

    chunk_id: str
    status: str
    extraction: Extraction | None
    contexts: dict[str, str] = field(default_factory=dict)
    """The fast extractor's weak relations (no verb between the names): the sentence of
    the chunk's text each was found in, by triplet id."""


@cache
def system_prompt() -> str:
    """The extraction instructions (kept in ``extraction.prompt.md``) and the output's
    schema: every call shares this prefix, so a local model reads it once, not with each
    passage (about 350 of a call's 750 prompt tokens)."""
    from graphmind.llm.base import schema_instruction
    from graphmind.llm.client import output_schema

    instructions = PROMPT_FILE.read_text(encoding="utf-8").strip()
    return instructions + "\n\n" + schema_instruction(output_schema(Extraction))


def messages_for(chunk: ChunkText) -> list[dict[str, str]]:
    """The chat messages that ask for one chunk's extraction."""
    header = f'Passage (from "{chunk.title}"):\n' if chunk.title else "Passage:\n"
    return [
        {"role": "system", "content": system_prompt()},
        {"role": "user", "content": header + chunk.text},
    ]


def extract_chunks(
    llm: LLM, chunks: Sequence[ChunkText], on_done: Callable[[int], None] | None = None
) -> list[ChunkExtraction]:
    """One structured LLM call per chunk (cached); failures are recorded, not raised.
    What the passage does not name is left out (``grounding.ground``)."""
    from graphmind.core.errors import LLMOutputError

    outputs = llm.structured_many(
        TASK, [messages_for(c) for c in chunks], Extraction, on_done=on_done
    )
    results = []
    for chunk, output in zip(chunks, outputs, strict=True):
        if isinstance(output, LLMOutputError):
            results.append(ChunkExtraction(chunk.id, f"failed: {str(output)[:300]}", None))
            continue
        output = ground(output, f"{chunk.title}\n{chunk.text}")
        if not output.entities and not output.relations:
            results.append(ChunkExtraction(chunk.id, "empty", output))
        else:
            results.append(ChunkExtraction(chunk.id, "ok", output))
    return results


def graph_rows(results: Sequence[ChunkExtraction]) -> tuple[list[EntityRow], list[TripletRow]]:
    """Triplets (merged on normalised s, p, o) and the entities they connect (merged on
    normalised name). Entities in no relation are left out: nothing links them to a chunk."""
    named: dict[str, EntityRow] = {}
    for result in results:
        if result.extraction is not None:
            for e in result.extraction.entities:
                key = entity_id(e.name)
                if normalize_name(e.name) and key not in named:
                    named[key] = EntityRow(key, e.name, e.type, e.description)
    entities: dict[str, EntityRow] = {}
    triplets: dict[str, TripletRow] = {}

    def endpoint(name: str) -> str | None:
        if not normalize_name(name):
            return None
        key = entity_id(name)
        if key not in entities:
            entities[key] = named.get(key) or EntityRow(key, name, "unknown", "")
        return key

    for result in results:
        if result.extraction is None:
            continue
        for r in result.extraction.relations:
            predicate = normalize_predicate(r.predicate)
            subject_id, object_id = endpoint(r.subject), endpoint(r.object)
            if subject_id is None or object_id is None or subject_id == object_id or not predicate:
                continue
            key = triplet_id(r.subject, r.predicate, r.object)
            row = triplets.get(key)
            if row is None:
                row = TripletRow(
                    key,
                    r.subject,
                    predicate,
                    r.object,
                    r.description,
                    r.event_time,
                    subject_id,
                    object_id,
                )
                triplets[key] = row
            if row.context is None and key in result.contexts:
                row.context = (result.chunk_id, result.contexts[key])
            if result.chunk_id not in row.chunk_ids:
                row.chunk_ids.append(result.chunk_id)
    used = {t.subject_id for t in triplets.values()} | {t.object_id for t in triplets.values()}
    return [e for key, e in entities.items() if key in used], list(triplets.values())


def entity_text(entity: dict[str, Any]) -> str:
    """What an entity is embedded as: name, type and description."""
    description = f": {entity['description']}" if entity.get("description") else ""
    return f"{entity['name']} ({entity['type']}){description}"


def triplet_text(triplet: dict[str, Any]) -> str:
    """What a triplet is embedded as: the fact and its description."""
    description = f". {triplet['description']}" if triplet.get("description") else ""
    return f"{triplet['text']}{description}"
