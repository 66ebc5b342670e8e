"""Gather: the round's queries and the candidates retrieval finds for them."""

from __future__ import annotations

import time
from dataclasses import replace

from graphmind.ask.options import BRIDGE_PASSAGES, BRIDGE_POOL, FUSE_ALL
from graphmind.ask.retrieve import FirstList, candidates, first_round, fuse, own_first, rank_lists
from graphmind.ask.retrievers import GRAPH_PPR, TEXT_CHUNK, VECTOR_CHUNK
from graphmind.ask.rules.question import TEMPORAL
from graphmind.ask.rules.text import titled
from graphmind.ask.state import AskState, Tools
from graphmind.core.decision import Candidate
from graphmind.memory.session import MemorySession


def embed(tools: Tools, state: AskState, texts: list[str]) -> list[list[float]]:
    """Embeddings of ``texts``, each computed once per question."""
    todo = [t for t in dict.fromkeys(texts) if t not in state.vectors]
    if todo:
        state.vectors.update(zip(todo, tools.embedder.embed(todo), strict=True))
    return [state.vectors[t] for t in texts]


def start(tools: Tools, question: str) -> AskState:
    """Embed the question, assign its query type and let the planner (in full memory
    mode) pick the retrieval recipe; the naive baseline reads no memory."""
    opts = tools.options
    mode = "off" if opts.mode == "naive" else opts.memory.mode
    memory = MemorySession(tools.store, replace(opts.memory, mode=mode))
    state = AskState(
        question,
        temporal=bool(TEMPORAL.search(question)),
        memory=memory,
        k=opts.k,
        asking=question,
        shows_first=own_first(question),  # an explanation reads its nearest pages
    )
    with state.timed("store"):
        memory.start(question, embed(tools, state, [question])[0])
    state.recipe = memory.config
    state.k = state.recipe.k(opts.k)
    return state


def next_queries(state: AskState) -> list[str]:
    """Round 1: the question. Later: the question (anchor) and the follow-up query,
    which is the next hop's question when the round asks one."""
    if not state.rounds:
        return [state.question]
    if state.hopping:
        return [state.question, state.asking]
    return [state.question, *state.follow_up()[:1]]


def retrieve(tools: Tools, state: AskState, queries: list[str]) -> list[Candidate]:
    """Hybrid retrieval for each query, fused with the graph expansion; earlier used
    evidence stays, earlier rejected evidence is not offered again."""
    started = time.perf_counter()
    with state.timed("store"):
        vectors = embed(tools, state, queries)
        for q, v in zip(queries, vectors, strict=True):
            if q not in state.ranked:
                state.ranked[q] = rank_lists(
                    tools.store, q, v, tools.options.retrieve, state.recipe
                )
        lists = [state.ranked[q] for q in queries]
        if state.expanded:
            lists.append({"expand": state.expanded})
        carried = state.used()
        carried_ids = {c.id for c in carried}
        exclude = state.rejected() | carried_ids
        width = state.k + tools.options.extra
        every = fuse(lists, FUSE_ALL)
        fused = [f for f in every if f[0] not in exclude]
        if not state.rounds:  # the list that measures best first (naive's top-k
            # when the store has no graph: round 1 then sends naive's prompt)
            hits = tools.store.vector_search("Chunk", vectors[0], state.k)
            near = {h.id: h.similarity for h in hits}
            head = first_round(lists[0], list(near), state.k, shown_first(tools, state))
            fused = _head_first(fused, [(c, near.get(c, 0.0), VECTOR_CHUNK) for c in head], every)
        else:  # the follow-up's own passages first, even ones shown uncited before:
            # they may hold the next hop, which the question's answer did not
            ahead = follow_up_passages(tools, state, queries[-1], vectors[-1], carried_ids)
            fused = _head_first(fused, ahead, every)
        state.fused.update(f[0] for f in fused)
        excluded = state.memory.exclude([f[0] for f in fused])
        fused = [f for f in fused if f[0] not in excluded]
        room = width if not state.rounds else tools.options.follow_up
        fresh = candidates(tools.store, fused[:room], tools.options.retrieve.max_triplets)
        found = carried + fresh
        profiles = state.memory.profiles([c.id for c in found])
    state.retrieve_ms += (time.perf_counter() - started) * 1000
    state.queries.extend(q for q in queries if q not in state.queries)
    for c in carried:
        if "memory" not in c.sources:
            c.sources = [*c.sources, "memory"]
    for c in found:
        c.profile = profiles.get(c.id, "")
    return found


def shown_first(tools: Tools, state: AskState) -> FirstList:
    """The list a round of this question shows first: ``[ask] first``, unless the
    question sets its own (a comparison's fact questions read the nearest passages)."""
    return state.shows_first or tools.options.first


def follow_up_passages(
    tools: Tools, state: AskState, query: str, vector: list[float], carried: set[str]
) -> list[tuple[str, float, str]]:
    """A later round's first passages: the follow-up's graph walk where the store has a
    graph, alone or fused with its nearest chunks as round 1's list is (``[ask] first``;
    on MuSiQue dev's later hops the walk held the hop's passage among its first 6 for 87%
    of them, the bridge's passages then the nearest chunks for 80%); else the bridge's
    passages (a next hop) then the follow-up's nearest chunks. The passages ``carried``
    (already used) are left out. Each passage names the list that found it."""
    hits = tools.store.vector_search("Chunk", vector, tools.options.follow_up)
    nearest = [(h.id, h.similarity, VECTOR_CHUNK) for h in hits if h.id not in carried]
    walk = [c for c in state.ranked[query].get(GRAPH_PPR, []) if c not in carried]
    first = shown_first(tools, state)
    if walk and first != "vector":
        near = {c: score for c, score, _ in nearest}
        head = first_round(  # the hop's walk as measured per hop (scripts/bench_hops.py)
            {GRAPH_PPR: walk}, list(near), tools.options.follow_up, first, lead=False
        )
        return [(c, near.get(c, 0.0), VECTOR_CHUNK if c in near else GRAPH_PPR) for c in head]
    if state.bridging:  # a next hop: the bridge's passages first
        about = _about(tools, state.rounds[-1].judgement.draft_answer, carried)
        named = {a[0] for a in about}
        return about + [n for n in nearest if n[0] not in named]
    return nearest


def _about(tools: Tools, bridge: str, carried: set[str]) -> list[tuple[str, float, str]]:
    """Passages about the bridge: full-text hits whose title is its name ("Laura
    Knight", "True Grit (1969 film)" for "True Grit"), not those that only share a
    rare word with it ("Staunton, Illinois" for "John George Lynch-Staunton")."""
    named = tools.store.fulltext_search("Chunk", bridge, BRIDGE_POOL)
    found = candidates(tools.store, [(h.id, h.score, [TEXT_CHUNK]) for h in named], 0)
    return [
        (c.id, c.score, TEXT_CHUNK)
        for c in found
        if c.id not in carried and titled(c.title, bridge)
    ][:BRIDGE_PASSAGES]


def _head_first(
    fused: list[tuple[str, float, list[str]]],
    head: list[tuple[str, float, str]],
    every: list[tuple[str, float, list[str]]],
) -> list[tuple[str, float, list[str]]]:
    """The fused list with ``head`` first, in its order: round 1's first list (naive's
    vector hits on a store without a graph, so round 1 then sends naive's prompt), or a
    later round's first passages. A head passage keeps the lists that found it, from
    ``every`` (the fusion before exclusions), or the list it came from where no fused list
    holds it (a bridge's full-text passage)."""
    by_id = {f[0]: f for f in every}
    first = [by_id.get(c, (c, score, [source])) for c, score, source in head]
    ids = {c for c, _, _ in head}
    return first + [f for f in fused if f[0] not in ids]
