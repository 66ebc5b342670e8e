"""``graphmind show``: an evidence graph as one self-contained, offline HTML page.

Three views, each read with named queries under ``cypher/show/``:

* a decision: the agent, the decision, its steps and what each retrieved, the judged
  passages coloured by their final verdict, their documents, the cited edges, the query
  and its query type;
* a chunk (``--chunk``): the passage, its document and the latest decisions that judged
  it, each edge coloured by that decision's verdict;
* a query type (``--query-type``): its latest queries, their decisions and the passages
  those cited.

The page is drawn by ``neo4j-viz``, whose JavaScript and CSS are inlined in the file: it
opens without a network and without a server.
"""

from __future__ import annotations

import re
import webbrowser
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from graphmind.core.errors import BadInputError, ConfigError, NotFoundError
from graphmind.store.base import GraphStore

ViewKind = Literal["decision", "chunk", "query-type"]

VERDICT_COLOURS: dict[str, str] = {
    "used": "#2e7d32",
    "rejected": "#c62828",
    "not judged": "#9e9e9e",
}
LABEL_COLOURS: dict[str, str] = {
    "Agent": "#00838f",
    "Decision": "#6a1b9a",
    "Step": "#1565c0",
    "Document": "#8d6e63",
    "Query": "#f9a825",
    "QueryType": "#ef6c00",
    "Community": "#00695c",
}
EDGE_COLOURS: dict[str, str] = {"CITED": "#1b5e20", "EVALUATED": "#616161"}
CAPTION_CHARS = 48
CHUNK_DECISIONS = 50
TYPE_DECISIONS = 100


@dataclass
class ViewNode:
    """A node of the picture: its graph id, label, caption, colour and properties."""

    id: str
    label: str
    caption: str
    colour: str
    properties: dict[str, Any] = field(default_factory=dict)


@dataclass
class ViewEdge:
    """A relationship of the picture."""

    source: str
    target: str
    type: str
    caption: str = ""
    colour: str | None = None
    properties: dict[str, Any] = field(default_factory=dict)


@dataclass
class EvidenceView:
    """Nodes and edges of one view, with a title; nodes are unique by id."""

    kind: ViewKind
    root: str
    title: str
    nodes: dict[str, ViewNode] = field(default_factory=dict)
    edges: list[ViewEdge] = field(default_factory=list)

    def add_node(self, node: ViewNode) -> None:
        """Add ``node`` unless a node with its id is there already."""
        self.nodes.setdefault(node.id, node)

    def add_edge(self, edge: ViewEdge) -> None:
        """Add ``edge`` when both ends are nodes of the view."""
        if edge.source in self.nodes and edge.target in self.nodes:
            self.edges.append(edge)

    def counts(self) -> dict[str, int]:
        """Nodes per label, for the command's summary line."""
        out: dict[str, int] = {}
        for node in self.nodes.values():
            out[node.label] = out.get(node.label, 0) + 1
        return out


def _short(text: object, limit: int = CAPTION_CHARS) -> str:
    value = " ".join(str(text or "").split())
    return value if len(value) <= limit else value[: limit - 1] + "…"


def _clean(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None and v != ""}


def _verdict(value: object) -> str:
    return str(value) if value in ("used", "rejected") else "not judged"


def decision_view(store: GraphStore, decision_id: str) -> EvidenceView:
    """The evidence graph of one decision."""
    found = store.run("show/decision", {"id": decision_id})
    if not found:
        raise NotFoundError(f"no decision {decision_id!r} in the store")
    d = found[0]
    view = EvidenceView(
        "decision", decision_id, f"Decision {decision_id}: {_short(d['question'], 80)}"
    )
    view.add_node(_decision_node(d))
    if d["agent"] is not None:
        view.add_node(
            ViewNode(
                str(d["agent"]),
                "Agent",
                _short(d["model"] or d["agent"]),
                LABEL_COLOURS["Agent"],
                _clean({"id": d["agent"], "model": d["model"]}),
            )
        )
        view.add_edge(ViewEdge(str(d["agent"]), decision_id, "DECIDED", "DECIDED"))
    _add_query_type(view, d, decision_id)

    (evidence,) = store.run("show/decision_evidence", {"id": decision_id})
    judged = {str(j["chunk"]): j for j in evidence["judged"] or [] if j.get("chunk") is not None}
    cited = {str(c["chunk"]): c for c in evidence["cited"] or [] if c.get("chunk") is not None}
    steps = store.run("show/decision_steps", {"id": decision_id})
    chunk_ids = list(
        dict.fromkeys([*judged, *cited, *(str(r["chunk"]) for r in steps if r["chunk"])])
    )
    _add_chunks(view, store, chunk_ids, {c: j.get("verdict") for c, j in judged.items()})

    for row in steps:
        step = str(row["step"])
        if step not in view.nodes:
            props = {"id": step, "round": row["round"], "query": row["query"]}
            props["sufficiency"] = row["sufficiency"]
            view.add_node(
                ViewNode(
                    step, "Step", f"round {row['round']}", LABEL_COLOURS["Step"], _clean(props)
                )
            )
            view.add_edge(ViewEdge(decision_id, step, "HAS_STEP", "HAS_STEP"))
        if row["chunk"] is not None:
            view.add_edge(
                ViewEdge(
                    step,
                    str(row["chunk"]),
                    "RETRIEVED",
                    f"#{row['rank']}",
                    properties=_clean({"rank": row["rank"], "verdict": row["verdict"]}),
                )
            )
    for chunk, j in judged.items():
        verdict = _verdict(j.get("verdict"))
        view.add_edge(
            ViewEdge(
                decision_id,
                chunk,
                "EVALUATED",
                verdict,
                VERDICT_COLOURS[verdict],
                _clean(
                    {"verdict": j.get("verdict"), "reason": j.get("reason"), "step": j.get("step")}
                ),
            )
        )
    for chunk, c in cited.items():
        view.add_edge(
            ViewEdge(
                decision_id,
                chunk,
                "CITED",
                f"cited #{c.get('rank')}",
                EDGE_COLOURS["CITED"],
                _clean({"rank": c.get("rank")}),
            )
        )
    _add_communities(view, store, decision_id)
    return view


def _add_communities(view: EvidenceView, store: GraphStore, decision_id: str) -> None:
    """The communities a broad decision read, each with its verdict and best point."""
    for row in store.run("memory/read_communities", {"id": decision_id}):
        community = str(row["id"])
        props = _clean({"id": community, "title": row["title"], "level": row["level"]})
        view.add_node(
            ViewNode(
                community,
                "Community",
                _short(row["title"] or community),
                LABEL_COLOURS["Community"],
                props,
            )
        )
        verdict = _verdict(row["verdict"])
        view.add_edge(
            ViewEdge(
                decision_id,
                community,
                "EVALUATED",
                verdict,
                VERDICT_COLOURS[verdict],
                _clean({"verdict": row["verdict"], "reason": row["reason"], "score": row["score"]}),
            )
        )


def chunk_view(store: GraphStore, chunk_id: str, limit: int = CHUNK_DECISIONS) -> EvidenceView:
    """One passage, its document and the latest decisions that judged it."""
    view = EvidenceView("chunk", chunk_id, f"Passage {chunk_id}")
    _add_chunks(view, store, [chunk_id], {})
    if chunk_id not in view.nodes:
        raise NotFoundError(f"no chunk {chunk_id!r} in the store")
    view.title = f"Passage {chunk_id}: {view.nodes[chunk_id].caption}"
    for row in store.run("show/chunk_decisions", {"chunk": chunk_id, "limit": int(limit)}):
        decision = str(row["decision"])
        view.add_node(_decision_node(row, decision))
        verdict = _verdict(row["verdict"])
        view.add_edge(
            ViewEdge(
                decision,
                chunk_id,
                "EVALUATED",
                verdict,
                VERDICT_COLOURS[verdict],
                _clean({"verdict": row["verdict"], "reason": row["reason"], "step": row["step"]}),
            )
        )
        if row["cited"]:
            view.add_edge(ViewEdge(decision, chunk_id, "CITED", "cited", EDGE_COLOURS["CITED"]))
        if row["query_type"] is not None:
            _add_type_node(view, row)
            view.add_edge(ViewEdge(decision, str(row["query_type"]), "TYPED_AS", "query type"))
    return view


def query_type_view(store: GraphStore, type_id: str, limit: int = TYPE_DECISIONS) -> EvidenceView:
    """A query type (by id or label), its latest queries, their decisions and citations."""
    rows = store.run("show/query_type", {"type": type_id, "limit": int(limit)})
    if not rows:
        raise NotFoundError(f"no query type {type_id!r} in the store (give its id or label)")
    view = EvidenceView("query-type", str(rows[0]["query_type"]), "")
    root = _add_type_node(view, rows[0])
    view.title = f"Query type {root.caption}"
    decisions: list[str] = []
    for row in rows:
        if row["decision"] is None:
            continue
        decision = str(row["decision"])
        decisions.append(decision)
        view.add_node(_decision_node(row, decision))
        query = _add_query(view, row, decision)
        view.add_edge(ViewEdge(query, root.id, "OF_TYPE", "OF_TYPE"))
    cited = store.run("show/decisions_cited", {"ids": decisions}) if decisions else []
    _add_chunks(view, store, list(dict.fromkeys(str(r["chunk"]) for r in cited)), {})
    for row in cited:
        view.add_edge(
            ViewEdge(
                str(row["decision"]),
                str(row["chunk"]),
                "CITED",
                f"cited #{row['rank']}",
                EDGE_COLOURS["CITED"],
            )
        )
    return view


def _decision_node(row: Mapping[str, Any], decision_id: str | None = None) -> ViewNode:
    ident = str(decision_id or row["id"])
    return ViewNode(
        ident,
        "Decision",
        _short(row["question"]),
        LABEL_COLOURS["Decision"],
        _clean(
            {
                "id": ident,
                "question": row.get("question"),
                "answer": row.get("answer"),
                "sufficiency": row.get("sufficiency"),
                "confidence": row.get("confidence"),
                "outcome": row.get("outcome"),
                "created_at": row.get("created_at"),
            }
        ),
    )


def _add_type_node(view: EvidenceView, row: Mapping[str, Any]) -> ViewNode:
    ident = str(row["query_type"])
    node = ViewNode(
        ident,
        "QueryType",
        _short(row["type_label"] or ident),
        LABEL_COLOURS["QueryType"],
        _clean({"id": ident, "label": row["type_label"], "count": row.get("type_count")}),
    )
    view.add_node(node)
    return view.nodes[ident]


def _add_query(view: EvidenceView, row: Mapping[str, Any], decision_id: str) -> str:
    """The decision's Query node and its RETRIEVED_VIA edge; returns the query's id."""
    query = str(row["query"])
    view.add_node(
        ViewNode(
            query,
            "Query",
            _short(row["query_text"]),
            LABEL_COLOURS["Query"],
            _clean({"id": query, "text": row["query_text"]}),
        )
    )
    view.add_edge(ViewEdge(decision_id, query, "RETRIEVED_VIA", "RETRIEVED_VIA"))
    return query


def _add_query_type(view: EvidenceView, row: Mapping[str, Any], decision_id: str) -> None:
    if row["query"] is None:
        return
    query = _add_query(view, row, decision_id)
    if row["query_type"] is not None:
        _add_type_node(view, row)
        view.add_edge(ViewEdge(query, str(row["query_type"]), "OF_TYPE", "OF_TYPE"))


def _add_chunks(
    view: EvidenceView, store: GraphStore, ids: list[str], verdicts: Mapping[str, object]
) -> None:
    """Chunk nodes coloured by verdict, with their documents and PART_OF edges."""
    if not ids:
        return
    for row in store.run("show/chunks", {"ids": ids}):
        chunk = str(row["id"])
        verdict = _verdict(verdicts.get(chunk))
        view.add_node(
            ViewNode(
                chunk,
                "Chunk",
                _short(row["title"] or row["text"]),
                VERDICT_COLOURS[verdict],
                _clean(
                    {
                        "id": chunk,
                        "verdict": verdicts.get(chunk),
                        "text": row["text"],
                        "document": row["title"],
                    }
                ),
            )
        )
        if row["document"] is not None:
            document = str(row["document"])
            view.add_node(
                ViewNode(
                    document,
                    "Document",
                    _short(row["title"] or row["source"] or document),
                    LABEL_COLOURS["Document"],
                    _clean({"id": document, "title": row["title"], "source": row["source"]}),
                )
            )
            view.add_edge(ViewEdge(chunk, document, "PART_OF", "PART_OF"))


def render_html(view: EvidenceView) -> str:
    """The view as one HTML page with neo4j-viz's JavaScript and CSS inlined."""
    try:
        from neo4j_viz import Node, Relationship, VisualizationGraph
    except ImportError as exc:
        raise ConfigError(f"graphmind show needs neo4j-viz: pip install graphmind ({exc})") from exc

    nodes = [
        Node.model_validate(
            {
                "id": n.id,
                "caption": n.caption,
                "color": n.colour,
                "size": _size(n.label),
                "properties": {"label": n.label, **n.properties},
            }
        )
        for n in view.nodes.values()
    ]
    edges = [
        Relationship.model_validate(
            {
                "id": f"e{i}",
                "source": e.source,
                "target": e.target,
                "caption": e.caption or e.type,
                "properties": {"type": e.type, **e.properties},
                **({"color": e.colour} if e.colour else {}),
            }
        )
        for i, e in enumerate(view.edges)
    ]
    graph = VisualizationGraph(nodes=nodes, relationships=edges)
    legend = [(label, colour) for label, colour in LABEL_COLOURS.items() if _has_label(view, label)]
    if _has_label(view, "Chunk"):
        legend += [(f"passage {v}", c) for v, c in VERDICT_COLOURS.items()]
    graph.set_legend(nodes=legend, relationships=list(EDGE_LEGEND))
    html = graph.render(height="96vh", theme="light", on_dangling="none")
    page = str(getattr(html, "data", None) or html)
    heading = f"<title>{_escape(view.title)}</title>"
    if re.search(r"<title>.*?</title>", page, re.S):
        return re.sub(r"<title>.*?</title>", lambda _: heading, page, count=1, flags=re.S)
    return page.replace("<head>", "<head>" + heading, 1)


EDGE_LEGEND = (
    ("EVALUATED used", VERDICT_COLOURS["used"]),
    ("EVALUATED rejected", VERDICT_COLOURS["rejected"]),
    ("CITED", EDGE_COLOURS["CITED"]),
)


def _has_label(view: EvidenceView, label: str) -> bool:
    return any(n.label == label for n in view.nodes.values())


def _size(label: str) -> int:
    return {"Decision": 28, "QueryType": 24, "Chunk": 18, "Step": 14}.get(label, 16)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def read_view(store: GraphStore, kind: ViewKind, ident: str) -> EvidenceView:
    """The view of ``kind`` rooted at ``ident``."""
    if not ident.strip():
        raise BadInputError(f"give the {kind} id to show")
    if kind == "decision":
        return decision_view(store, ident)
    if kind == "chunk":
        return chunk_view(store, ident)
    return query_type_view(store, ident)


def write_view(view: EvidenceView, path: Path) -> Path:
    """Write the view's HTML page to ``path`` (folders created) and return its absolute path."""
    target = path.expanduser().resolve()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render_html(view), encoding="utf-8")
    except OSError as exc:
        raise BadInputError(f"cannot write {target}: {exc}") from exc
    return target


def default_path(state_dir: Path, kind: ViewKind, ident: str) -> Path:
    """Where a view is written unless ``--output`` says otherwise."""
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in ident)[:80] or "view"
    return state_dir / "show" / f"{kind}-{safe}.html"


def open_in_browser(path: Path) -> bool:
    """Open the page in the default browser; False when none could be started."""
    return webbrowser.open(path.as_uri())


def summary(view: EvidenceView) -> str:
    """One line: what the picture holds."""
    parts = [f"{count} {label}" for label, count in sorted(view.counts().items())]
    return f"{len(view.nodes)} nodes ({', '.join(parts)}), {len(view.edges)} relationships"
