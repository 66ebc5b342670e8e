"""End to end with the real local model: extraction by Qwen2.5-Coder-0.5B through llama.cpp
and the default sentence-transformers embedder, on both stores."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from conftest import store_settings
from graphmind import api
from graphmind.config import load_settings
from graphmind.ingest.options import BuildOptions
from graphmind.llm.models import default_gguf_path

pytestmark = pytest.mark.slow


def test_real_model_builds_a_few_paragraphs(tmp_path: Path, store_env: dict[str, str]) -> None:
    settings = load_settings(**store_settings(tmp_path, store_env))
    if default_gguf_path(settings.model_path) is None:
        if os.environ.get("CI"):
            pytest.fail("the offline model is missing: scripts/test.sh fetches it")
        pytest.skip("offline model not fetched: run scripts/fetch_model.py")
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "curie.txt").write_text(
        "Marie Curie was born in Warsaw in 1867. She moved to Paris in 1891.\n\n"
        "Marie Curie won the Nobel Prize in Chemistry in 1911."
    )
    (tmp_path / "corpus" / "hahn.txt").write_text(
        "Otto Hahn was a German chemist born in Frankfurt in 1879."
    )
    started = time.perf_counter()
    # The offline model would build spaCy's graph by default (auto): ask for its triplets.
    report = api.build([tmp_path / "corpus"], BuildOptions(extract="llm"), settings)
    seconds = time.perf_counter() - started
    print(
        f"\nreal 0.5B build: {report.chunks_written} chunks in {seconds:.1f}s, "
        f"LLM {report.llm['total']}"
    )
    assert report.extraction.startswith("llm:"), report.extraction
    assert report.documents_new == 2 and report.chunks_written == 2
    assert report.chunks_failed == 0
    assert report.llm["tasks"]["extract"]["calls"] == 2
    from graphmind.factories import open_store

    with open_store(settings) as store:
        names = {
            r["name"].lower()
            for r in store.run_text("MATCH (e:Entity) RETURN e.name AS name").records()
        }
        assert {"marie curie", "otto hahn", "warsaw", "frankfurt"} & names, names
        assert store.counts()["Triplet"] > 0
        hit = store.vector_search("Chunk", _embed(settings, "Where was Otto Hahn born?"), 1)[0]
        assert "Frankfurt" in hit.properties["text"]


def _embed(settings: object, text: str) -> list[float]:
    from graphmind.factories import make_embedder

    return make_embedder(settings).embed([text])[0]  # type: ignore[arg-type]
