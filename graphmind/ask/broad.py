"""Broad questions ("What are the main themes of these documents?"): answered from the
community layer, not from the ten passages nearest the question.

GraphRAG's global search, bounded for a small local model: the communities the question
reaches are ranked (their summaries nearest the question, the communities of the passages
nearest it, and for a question about the whole collection the largest top-level ones; fused
by reciprocal rank, a community and its own parent never both). A map call per community
reads its title, summary and the passages of it nearest the question and returns the points
they make toward the question; one more reads the passages nearest the question that no
community read (the local beside the global, as LightRAG's hybrid mode). A community that
only had its members' names keeps the summary its map call wrote, unless it is of the
question rather than of the passages (lazy summaries). A reduce call writes the answer from
the best points, each sentence citing points, so each rests on passages and communities
(when it gives only the question back, as the 1.5B does, the best points are the answer; a
part its sentences leave out adds its best point; a sentence giving the question back,
copying the prompt or repeating one before it is left out), and the decision is auditable
like a deep one (``EVALUATED`` edges to the communities).
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Literal

from graphmind.ask.models import BroadAnswer, CommunityPoints, Point
from graphmind.ask.options import AskOptions
from graphmind.ask.prompts import passages, prompt
from graphmind.ask.retrieve import RRF_K, candidates
from graphmind.ask.retrievers.chunk import VECTOR_CHUNK
from graphmind.ask.rules.broad_text import Kept, point_line, summary_echoes, uncopied, untitled
from graphmind.ask.rules.question import broad_question, whole_collection
from graphmind.ask.state import AskState, Tools
from graphmind.ask.steps.gather import embed
from graphmind.communities.incremental import has_communities
from graphmind.communities.report import CommunityReport, embedding_text
from graphmind.core.decision import (
    Candidate,
    Citation,
    CommunityVerdict,
    Judgement,
    Statement,
    Sufficiency,
    Verdict,
)
from graphmind.core.errors import BadInputError, LLMOutputError
from graphmind.core.text import CHARS_PER_TOKEN
from graphmind.store.base import GraphStore

COMMUNITY_SOURCE = "community"  # the list a broad answer's passages come from
NEAREST_CHUNKS = 30  # passages nearest the question: the communities they lead to
NEAREST_SUMMARIES = 12  # community summaries nearest the question
LARGEST = 4  # the largest top-level communities, for questions about the whole collection
POOL = 12  # a community's passages considered (most mentioned first)
PASSAGE_CHARS = 700  # of each passage the map call reads
MAP_MAX_TOKENS = 320  # title, summary, three points
REDUCE_MAX_TOKENS = 400  # five sentences with their point numbers
NO_POINT = "its passages say nothing toward the question"
NEAREST = "the passages nearest the question"  # the part read beside the communities
LAZY = "lazy"  # summary_status of a summary written at question time


def scope_of(options: AskOptions, store: GraphStore, question: str) -> Literal["deep", "broad"]:
    """Deep or broad: ``scope`` when it says, else the question's form; a broad question
    on a store without communities is answered deep (asked broad explicitly: an error
    that says how to build them)."""
    if options.scope == "deep" or options.mode != "loop":
        return "deep"
    if options.scope == "auto" and not broad_question(question):
        return "deep"
    if has_communities(store):
        return "broad"
    if options.scope == "broad":
        raise BadInputError(
            "this store has no communities to answer a broad question from: build with "
            "--extract fast (or llm) and run `graphmind communities`, or ask with --scope deep"
        )
    return "deep"


@dataclass
class Reached:
    """One community the question reached, what its map call read and returned."""

    id: str
    level: int
    title: str
    summary: str
    status: str
    parent: str | None
    shown: list[Candidate] = field(default_factory=list)
    points: list[Point] = field(default_factory=list)
    failed: bool = False

    @property
    def community(self) -> bool:
        """Whether this part is a community (not the passages nearest the question)."""
        return bool(self.id)


@dataclass
class Broad:
    """A broad answer: the passages read (with verdicts), the sentences and what they cite."""

    shown: list[Candidate]
    judgement: Judgement
    statements: list[Statement]
    citations: list[Citation]
    communities: list[CommunityVerdict]


def answer_broad(tools: Tools, state: AskState) -> Broad:
    """Rank the communities, map each to points, reduce the best points to the answer."""
    opts = tools.options
    started = time.perf_counter()
    with state.timed("store"):
        reached, nearest = _reach(tools, state, opts.broad_communities)
        parts = _read_passages(tools, reached, nearest, opts)
    state.retrieve_ms += (time.perf_counter() - started) * 1000
    state.queries.append(state.question)
    for part in parts:
        _map(tools, state, part)
    _keep_summaries(tools, state, reached)
    ranked = sorted(((p, c) for c in parts for p in c.points), key=lambda pc: -pc[0].score)[
        : opts.broad_points
    ]
    statements = _reduce(tools, state, ranked) if ranked else []
    # the reduce call only restated the question: the points stand; else the parts of
    # the collection its sentences left out add their best point each
    statements = _points(ranked, state.question, statements)
    return _verdicts(parts, ranked, statements, state.question)


def _reach(tools: Tools, state: AskState, width: int) -> tuple[list[Reached], list[str]]:
    """The ``width`` communities the question reaches best, a community and its parent
    never both (their passages would repeat), and the passages nearest the question. The
    largest communities join only for a question about the whole collection: for one
    subject across it ("what risks does the manual describe for untrusted input?") they
    took a slot in every answer with points about ``math.acos`` or ``itertools.tee``."""
    store = tools.store
    vector = embed(tools, state, [state.question])[0]
    nearest = [h.id for h in store.vector_search("Chunk", vector, NEAREST_CHUNKS)]
    state.fused.update(nearest)
    through: dict[str, float] = defaultdict(float)
    for row in store.run("ask/broad_chunk_communities", {"ids": nearest}):
        rank = nearest.index(row["chunk"]) + 1
        for community in row["communities"]:
            through[community] += 1.0 / (RRF_K + rank)
    lists = [
        sorted(through, key=lambda c: (-through[c], c)),
        [h.id for h in store.vector_search("Community", vector, NEAREST_SUMMARIES)],
    ]
    if whole_collection(state.question):  # what "the main themes" are made of
        lists.append([r["id"] for r in store.run("ask/broad_top_communities", {"limit": LARGEST})])
    scores: dict[str, float] = defaultdict(float)
    for ranking in lists:
        for rank, community in enumerate(ranking, start=1):
            scores[community] += 1.0 / (RRF_K + rank)
    order = sorted(scores, key=lambda c: (-scores[c], c))[: 3 * width]
    rows = {r["id"]: r for r in store.run("ask/broad_communities", {"ids": order})}
    picked: list[Reached] = []
    for cid in order:
        info = rows.get(cid)
        if info is None or len(picked) == width:
            continue
        family = {c.id for c in picked} | {c.parent for c in picked if c.parent}
        if cid in family or (info["parent"] and info["parent"] in {c.id for c in picked}):
            continue
        picked.append(
            Reached(
                id=cid,
                level=int(info["level"] or 0),
                title=info["title"] or "",
                summary=info["summary"] or "",
                status=info["status"] or "names",
                parent=info["parent"],
            )
        )
    return picked, nearest


def _read_passages(
    tools: Tools, reached: list[Reached], nearest: list[str], opts: AskOptions
) -> list[Reached]:
    """Each community's ``broad_passages`` passages, those ``nearest`` the question first
    (else the most mentioned), none read twice; then, as one more part, the
    ``broad_nearest`` of naive's ``k`` nearest passages that no community read: where one
    passage answers ("pass encoding='utf-8'"), naive's first passage said more than four
    communities' points (LightRAG's hybrid mode reads the local beside the global too)."""
    rank = {c: n for n, c in enumerate(nearest)}
    pools: dict[str, list[str]] = defaultdict(list)
    rows = tools.store.run(
        "ask/chunks_for_communities", {"ids": [c.id for c in reached], "per_community": POOL}
    )
    for row in rows:
        pools[row["community"]].append(row["chunk"])
    taken: set[str] = set()
    chosen: dict[str, list[str]] = {}
    for community in reached:
        pool = sorted(pools[community.id], key=lambda c: rank.get(c, len(rank)))
        chosen[community.id] = [c for c in pool if c not in taken][: opts.broad_passages]
        taken.update(chosen[community.id])
    local = Reached(id="", level=0, title=NEAREST, summary="", status=NEAREST, parent=None)
    chosen[local.id] = [c for c in nearest[: opts.k] if c not in taken][: opts.broad_nearest]
    parts = [*reached, local] if chosen[local.id] else reached
    found = candidates(
        tools.store,
        [
            (c, 0.0, [COMMUNITY_SOURCE if part.community else VECTOR_CHUNK])
            for part in parts
            for c in chosen[part.id]
        ],
        opts.retrieve.max_triplets,
    )
    by_id = {c.id: c for c in found}
    for part in parts:
        part.shown = [by_id[c] for c in chosen[part.id] if c in by_id]
    return parts


def _map(tools: Tools, state: AskState, community: Reached) -> None:
    """The points one community's passages (or the nearest passages) make toward the
    question (one call)."""
    if not community.shown:
        return
    # a summary, or (names only) the members' "Entities: a, b, c."
    described = community.status != "names"
    label = "Summary: " if described else ""
    head = f"Group: {community.title}"
    if community.community:
        head += f"\n{label}{community.summary}"
    budget = PASSAGE_CHARS * len(community.shown) // CHARS_PER_TOKEN
    shown = passages(community.shown, budget, facts=False)
    messages = [
        {"role": "system", "content": prompt("broad_map")},
        {
            "role": "user",
            "content": f"Question: {state.question}\n\n{head}\n\nPassages:\n{shown}",
        },
    ]
    try:
        with state.timed("llm"):
            out = tools.llm.structured(
                "broad_map", messages, CommunityPoints, max_tokens=MAP_MAX_TOKENS
            )
    except LLMOutputError:
        community.failed = True
        return
    count = len(community.shown)
    community.points = [
        p.model_copy(update={"passages": [n for n in p.passages if 1 <= n <= count]})
        for p in out.points
        if p.text and any(1 <= n <= count for n in p.passages)
    ]
    read = [head, *(f"{c.title} {c.text}" for c in community.shown)]
    summary = uncopied(out.summary, _instructions())
    echoes = summary_echoes(out.title, summary, state.question, read)
    if not described and out.title and summary and not echoes:
        community.title, community.summary, community.status = out.title, summary, LAZY


def _keep_summaries(tools: Tools, state: AskState, reached: list[Reached]) -> None:
    """Write the summaries the map calls gave communities that had none, with their
    embeddings, in the form the community run embeds its own."""
    lazy = [c for c in reached if c.status == LAZY]
    if not lazy:
        return
    with state.timed("store"):
        texts = [embedding_text(CommunityReport(title=c.title, summary=c.summary)) for c in lazy]
        vectors = tools.embedder.embed(texts)
        rows = [
            {"id": c.id, "title": c.title, "summary": c.summary, "embedding": v}
            for c, v in zip(lazy, vectors, strict=True)
        ]
        tools.store.write_rows("community/set_lazy_summary", rows, batch_size=len(rows))


def _reduce(tools: Tools, state: AskState, ranked: list[tuple[Point, Reached]]) -> list[Statement]:
    """The answer's sentences from the numbered points, each resting on the passages of
    the points it cites; a sentence citing none is left out (``_points`` reads the rest)."""
    lines = [point_line(n, c.title, p.text) for n, (p, c) in enumerate(ranked, start=1)]
    messages = [
        {"role": "system", "content": prompt("broad_reduce")},
        {
            "role": "user",
            "content": f"Question: {state.question}\n\nPoints:\n" + "\n".join(lines),
        },
    ]
    try:
        with state.timed("llm"):
            out = tools.llm.structured(
                "broad_reduce", messages, BroadAnswer, max_tokens=REDUCE_MAX_TOKENS
            )
    except LLMOutputError:
        return []
    titles = {c.title for _, c in ranked}
    statements = []
    for sentence in out.sentences:
        text = untitled(" ".join(sentence.text.split()), titles)
        cited = [ranked[n - 1] for n in sentence.citations if 1 <= n <= len(ranked)]
        chunks = [c.shown[i - 1].id for p, c in cited for i in p.passages]
        if text and chunks:
            statements.append(Statement(text, list(dict.fromkeys(chunks))))
    return statements


def _points(
    ranked: list[tuple[Point, Reached]], question: str, written: list[Statement]
) -> list[Statement]:
    """The reduce call's sentences (``written``), then the best point of each community
    none of them cites, as a sentence on its passages: a small model writes one sentence
    where the points came from four parts of the collection. With no sentence kept (the
    reduce call only restated the question), the best points themselves. Of each, only
    the sentences ``Kept`` finds new; at most ``BroadAnswer.limit``."""
    kept = Kept(question, _instructions())
    statements = []
    for statement in written:
        if text := kept.keep(statement.text):
            statements.append(Statement(text, statement.chunks))
    cited = {c for s in statements for c in s.chunks}
    covered = {c.id for _, c in ranked if cited & {p.id for p in c.shown}}
    wrote = bool(statements)
    for point, community in ranked:  # best first
        if wrote and community.id in covered:
            continue
        if text := kept.keep(" ".join(point.text.split())):
            chunks = [community.shown[i - 1].id for i in point.passages]
            statements.append(Statement(text, list(dict.fromkeys(chunks))))
            covered.add(community.id)
    return statements[: BroadAnswer.limit]


def _instructions() -> str:
    """What the map and reduce prompts tell the model: text an answer should not copy."""
    return f"{prompt('broad_map')}\n{prompt('broad_reduce')}"


def _verdicts(
    parts: list[Reached],
    ranked: list[tuple[Point, Reached]],
    statements: list[Statement],
    question: str,
) -> Broad:
    """Verdicts on every passage and community read: used when the answer cites it."""
    cited = {c for s in statements for c in s.chunks}
    shown = [p for c in parts for p in c.shown]
    reasons = {c.shown[i - 1].id: p.text for p, c in reversed(ranked) for i in p.passages}
    verdicts = [
        Verdict(
            ref=n,
            verdict="used" if p.id in cited else "rejected",
            reason=reasons.get(p.id, NO_POINT)[:300],
        )
        for n, p in enumerate(shown, start=1)
    ]
    used_points = [p for p, c in ranked if any(c.shown[i - 1].id in cited for i in p.passages)]
    communities = []
    for c in (part for part in parts if part.community):
        best = max(c.points, key=lambda p: p.score, default=None)
        uses = any(p.id in cited for p in c.shown)
        reason = "no reply the map step could read" if c.failed else NO_POINT
        communities.append(
            CommunityVerdict(
                id=c.id,
                title=c.title,
                verdict="used" if uses else "rejected",
                reason=best.text if best else reason,
                score=(best.score / 100) if best else 0.0,
                level=c.level,
            )
        )
    by_id = {p.id: p for p in shown}
    order = list(dict.fromkeys(c for s in statements for c in s.chunks))
    grade = (
        Sufficiency.NONE
        if not statements
        else Sufficiency.PARTIAL
        if len(statements) == 1
        else Sufficiency.INFERRABLE
    )
    confidence = sum(p.score for p in used_points) / (100 * len(used_points)) if used_points else 0
    judgement = Judgement(
        verdicts=verdicts,
        draft_answer=statements[0].text if statements else "",
        sufficiency=grade,
        confidence=round(confidence, 3),
        missing="" if statements else f"no community says anything toward: {question}"[:300],
    )
    return Broad(
        shown=shown,
        judgement=judgement,
        statements=statements,
        citations=[Citation(c, by_id[c].title, by_id[c].text) for c in order],
        communities=communities,
    )
