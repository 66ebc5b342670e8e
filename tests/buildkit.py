"""Shared pieces of the build tests: a scripted extraction LLM, a hashed embedder, graph dumps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graphmind.embed.hashing import HashingEmbedder
from graphmind.embed.spec import EmbedderSpec
from graphmind.extract.heuristic import heuristic_response
from graphmind.ingest.options import BuildOptions, BuildReport
from graphmind.ingest.pipeline import BuildPipeline
from graphmind.llm.base import Message
from graphmind.llm.cache import ResponseCache
from graphmind.llm.client import LLM
from graphmind.llm.scripted import Responder, ScriptedProvider
from graphmind.store.base import GraphStore

CORPUS = Path(__file__).parent / "fixtures" / "corpus"
HASH_SPEC = EmbedderSpec("hash", "hash-384", 384)


def scripted_llm(cache_file: Path, responder: Responder = heuristic_response) -> LLM:
    """A zero-latency extraction LLM with a persistent cache."""
    return LLM(ScriptedProvider(responder), cache=ResponseCache(cache_file))


def provider_of(llm: LLM) -> ScriptedProvider:
    provider = llm.provider
    assert isinstance(provider, ScriptedProvider)
    return provider


def build(store: GraphStore, paths: list[Path], llm: LLM | None, **options: Any) -> BuildReport:
    """Build with the hashed embedder (the store must use HASH_SPEC)."""
    store.ensure_schema(HASH_SPEC)
    pipeline = BuildPipeline(store, HashingEmbedder(HASH_SPEC), llm, BuildOptions(**options))
    return pipeline.run([str(p) for p in paths])


def dump(
    store: GraphStore, *, volatile: tuple[str, ...] = ("ingested_at",)
) -> dict[str, list[tuple[str, ...]]]:
    """Every node and relationship with its properties (ids sorted), for exact comparison."""
    nodes = store.run_text(
        "MATCH (n) RETURN labels(n)[0] AS label, n.id AS id, properties(n) AS props"
    ).records()
    rels = store.run_text(
        "MATCH (a)-[r]->(b) RETURN a.id AS a, type(r) AS type, b.id AS b, properties(r) AS props"
    ).records()

    def clean(props: dict[str, Any]) -> dict[str, Any]:
        out = {}
        for key, value in props.items():
            if key in volatile or key in ("created_at", "updated_at"):
                continue
            if key == "embedding" and value is not None:
                value = [round(float(x), 5) for x in value]
            out[key] = value
        return out

    return {
        "nodes": sorted(
            (n["label"], n["id"], repr(sorted(clean(n["props"]).items()))) for n in nodes
        ),
        "rels": sorted(
            (r["a"], r["type"], r["b"], repr(sorted(clean(r["props"]).items()))) for r in rels
        ),
    }


def entity_names(store: GraphStore) -> set[str]:
    return {r["name"] for r in store.run_text("MATCH (e:Entity) RETURN e.name AS name").records()}


def last_user(messages: list[Message]) -> str:
    return messages[-1]["content"]


def minimal_pdf(text: str) -> bytes:
    """A one-page PDF showing ``text`` (built by hand: offsets computed, no library)."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return bytes(out)
