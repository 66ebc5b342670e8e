"""``graphmind show``: the evidence graph of a decision, a passage or a query type, read
from the store and drawn as one offline HTML page (checked in a real headless browser)."""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path

import pytest

from conftest import StoreFactory
from graphmind.core.errors import ConfigError
from graphmind.memory.decisions import read_decision, step_id
from graphmind.show import (
    LABEL_COLOURS,
    VERDICT_COLOURS,
    chunk_view,
    decision_view,
    query_type_view,
    render_html,
)
from graphmind.store.base import GraphStore
from helpers.ask import QUESTION, asked_on_disk, chunk_of, loop
from helpers.browser import CHROMIUM, CHROMIUM_FLAGS, SHOTS_FOR, colour_pixels


def test_decision_view_holds_the_evidence_graph(
    corpus_store: GraphStore, tmp_path: Path, open_store: StoreFactory
) -> None:
    decision = loop(corpus_store, tmp_path).ask(QUESTION)
    trace = read_decision(corpus_store, decision.id)
    assert trace is not None
    view = decision_view(corpus_store, decision.id)

    assert view.nodes[decision.id].label == "Decision"
    assert view.nodes[decision.id].properties["answer"] == "Port Ellis"
    steps = {n.id for n in view.nodes.values() if n.label == "Step"}
    assert steps == {step_id(decision.id, r.number) for r in trace.rounds}
    # every judged passage is coloured by its final verdict
    verdicts = {
        r["id"]: r["verdict"]
        for r in corpus_store.run_text(
            "MATCH (:Decision {id: $id})-[e:EVALUATED]->(c:Chunk) "
            "RETURN c.id AS id, e.verdict AS verdict",
            {"id": decision.id},
        ).records()
    }
    assert set(verdicts.values()) == {"used", "rejected"}
    for chunk, verdict in verdicts.items():
        assert view.nodes[chunk].colour == VERDICT_COLOURS[verdict]
    cited = {(e.source, e.target) for e in view.edges if e.type == "CITED"}
    assert cited == {(decision.id, c.chunk_id) for c in trace.citations}
    assert {chunk_of(corpus_store, "Aldo Vance"), chunk_of(corpus_store, "Silent Harbor")} == {
        t for _, t in cited
    }
    # documents, the step edges, the query and its type
    documents = {n.properties.get("title") for n in view.nodes.values() if n.label == "Document"}
    assert {"Aldo Vance", "Silent Harbor"} <= documents
    types = Counter(e.type for e in view.edges)
    assert types["HAS_STEP"] == len(steps) and types["DECIDED"] == 1
    assert types["EVALUATED"] == len(verdicts) and types["PART_OF"] >= 2
    assert types["RETRIEVED"] == sum(len(r.candidates) for r in trace.rounds)
    assert trace.retrieval.query_type in view.nodes
    assert all(e.source in view.nodes and e.target in view.nodes for e in view.edges)

    with pytest.raises(ConfigError, match="no decision 'nope'"):
        decision_view(corpus_store, "nope")


def test_chunk_and_query_type_views(corpus_store: GraphStore, tmp_path: Path) -> None:
    first = loop(corpus_store, tmp_path).ask(QUESTION)
    second = loop(corpus_store, tmp_path).ask(QUESTION)
    aldo = chunk_of(corpus_store, "Aldo Vance")

    view = chunk_view(corpus_store, aldo)
    decisions = {n.id for n in view.nodes.values() if n.label == "Decision"}
    assert decisions == {first.id, second.id}
    used = [e for e in view.edges if e.type == "EVALUATED"]
    assert len(used) == 2 and all(e.colour == VERDICT_COLOURS["used"] for e in used)
    assert sum(e.type == "CITED" for e in view.edges) == 2
    assert any(
        n.label == "Document" and n.properties["title"] == "Aldo Vance" for n in view.nodes.values()
    )
    with pytest.raises(ConfigError, match="no chunk 'nope'"):
        chunk_view(corpus_store, "nope")

    trace = read_decision(corpus_store, first.id)
    assert trace is not None and trace.retrieval.query_type
    query_type = trace.retrieval.query_type
    for key in (query_type, view.nodes[query_type].properties.get("label")):
        by = query_type_view(corpus_store, str(key))
        assert by.root == query_type
        assert {n.id for n in by.nodes.values() if n.label == "Decision"} == {first.id, second.id}
        assert aldo in by.nodes and by.nodes[query_type].colour == LABEL_COLOURS["QueryType"]
    with pytest.raises(ConfigError, match="no query type"):
        query_type_view(corpus_store, "nope")


def test_the_page_is_self_contained(corpus_store: GraphStore, tmp_path: Path) -> None:
    decision = loop(corpus_store, tmp_path).ask(QUESTION)
    page = render_html(decision_view(corpus_store, decision.id))
    assert "<title>Decision " in page
    assert not re.search(r"<script[^>]+src=|<link[^>]+href=\"?https?:", page)
    data = json.loads(
        re.search(
            r'<script type="application/json" id="neo4j-viz-data">(.*?)</script>', page, re.S
        ).group(1)  # type: ignore[union-attr]
    )
    ids = {n["id"] for n in data["nodes"]}
    assert decision.id in ids and chunk_of(corpus_store, "Silent Harbor") in ids


@pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (apt-get install chromium)")
def test_graphmind_show_renders_in_a_headless_browser(tmp_path: Path) -> None:
    decision, cli = asked_on_disk(tmp_path, {})  # FalkorDB Lite
    page = tmp_path / "out" / "decision.html"
    shown = cli("show", decision.id, "--output", str(page))
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == str(page.resolve()) and page.is_file()
    assert "Decision" in shown.stderr and "relationships" in shown.stderr

    assert CHROMIUM is not None
    drawn = (LABEL_COLOURS["Decision"], VERDICT_COLOURS["used"], VERDICT_COLOURS["rejected"])
    with tempfile.TemporaryDirectory() as profile:
        flags = [CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}"]
        shot = tmp_path / "shot.png"
        # headless chromium takes the shot before the layout (computed off the page's thread)
        # has drawn anything, now and then on idle cores and in runs of several on busy ones:
        # a blank canvas; shots go on until one shows the graph, a page that never draws fails
        deadline = time.monotonic() + SHOTS_FOR
        while True:
            subprocess.run(
                [*flags, f"--screenshot={shot}", page.as_uri()],
                capture_output=True,
                timeout=180,
                check=False,
            )
            drew = all(colour_pixels(shot)[c] > 400 for c in drawn)
            if drew or time.monotonic() > deadline:
                break
        dom = subprocess.run(
            [*flags, "--dump-dom", page.as_uri()],
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        ).stdout
    # the script ran (it writes the legend) and the graph data holds the decision's ids
    assert "passage used" in dom and "passage rejected" in dom
    assert decision.id in dom
    assert all(c.chunk_id in dom for c in decision.citations)
    # the canvas drew the nodes: each colour fills far more than its legend swatch
    pixels = colour_pixels(shot)
    assert len(pixels) > 50  # not a blank page
    for colour in drawn:
        assert pixels[colour] > 400, colour


def test_show_cli_errors(tmp_path: Path) -> None:
    decision, cli = asked_on_disk(tmp_path, {})  # FalkorDB Lite
    none = cli("show")
    assert none.returncode == 2 and "give one of DECISION_ID" in none.stderr
    both = cli("show", decision.id, "--chunk", "x")
    assert both.returncode == 2 and "give one of" in both.stderr
    missing = cli("show", "--query-type", "nope", "-o", str(tmp_path / "x.html"))
    assert missing.returncode == 3 and "no query type 'nope'" in missing.stderr
    assert not (tmp_path / "x.html").exists()
    default = cli("show", "--chunk", decision.citations[0].chunk_id)
    assert default.returncode == 0, default.stderr
    written = Path(default.stdout.strip())
    assert written.parent == tmp_path / "show" and written.name.startswith("chunk-")
