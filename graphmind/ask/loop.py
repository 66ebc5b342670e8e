"""The iterative evidence loop, top-down: retrieve, read, check, stop or evolve, answer,
record.

ToG-3's Retriever / Responder / Reflector / Constructor, EviMem's graded sufficiency
with a missing-information diagnosis and dual-path retrieval, IRCoT / self-ask's one
follow-up query naming the bridge entity, and QRMeM's failure-reason-guided graph
expansion. Each round asks the model two small things: an answer with the passages it
rests on (the naive baseline's call, over at least the naive baseline's passages), then,
as the next turn of the same conversation (so a prefix-caching model reads only that
turn), whether a link is missing and what to search for. The round's grade and verdicts
follow from what was cited and whether the answer is stated in it. A later round
replaces the answer only when its answer is grounded in what it cites. Nothing is
written until the whole decision is known, and then in one atomic query.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from graphmind.ask.models import MAX_CITATIONS, Answer, Check, judged_answer
from graphmind.ask.prompts import (
    answer_messages,
    check_messages,
    example_copied_messages,
    example_text,
    judged_messages,
    next_turn,
    prompt,
    prompt_version,
    without_example,
)
from graphmind.ask.retrieve import (
    FirstList,
    RetrieveOptions,
    candidates,
    first_round,
    fuse,
    rank_lists,
)
from graphmind.ask.retrievers import RETRIEVERS, TEXT_CHUNK, VECTOR_CHUNK
from graphmind.core.decision import (
    Candidate,
    Citation,
    Decision,
    EntityCoverage,
    Judgement,
    Retrieval,
    Round,
    Sufficiency,
    Verdict,
)
from graphmind.core.recipes import DEFAULT_RECIPE, Recipe
from graphmind.core.scoring import normalize_answer
from graphmind.extract.extractor import ChunkText, extract_chunks
from graphmind.extract.writer import write_extractions
from graphmind.memory.decisions import write_decision
from graphmind.memory.session import MemoryOptions, MemorySession
from graphmind.store.base import GraphStore

if TYPE_CHECKING:
    from graphmind.embed import Embedder
    from graphmind.llm import LLM

ABSTAIN_ANSWER = "Not found in the corpus."
TEMPORAL = re.compile(
    r"\b(when|what year|which year|what date|how long|since when|until when|how many years"
    r"|what century|what decade|born|died|founded)\b",
    re.IGNORECASE,
)
EXPAND_RELATIONS = 3  # relations (best matches for the gap) whose chunks the expansion adds
EXPAND_POOL = 200  # relations of the anchors' entities scored against the gap
EXPAND_ENTITIES = 10  # anchor entity names added to the expansion's target text
EXPAND_ANCHORS = 3  # without used evidence, the last round's top candidates anchor it
EVOLVE_CHUNKS = 3  # used chunks extracted at question time, per round
ANSWER_MAX_TOKENS = 96  # a short answer and a few passage numbers
CHECK_MAX_TOKENS = 128  # a flag, one fact, one query
VERDICT_TOKENS = 40  # one judged verdict, its reason at most JUDGED_REASON_CHARS
GROUNDED = 0.5  # share of the answer's words a cited passage must state
FUSE_ALL = 10_000  # fuse every ranked chunk: the cut to the candidates comes after
REASON_CHARS = 300  # a verdict's reason, cut
STEM_CHARS = 5  # a word's crude stem: its first letters (worked ~ working ~ work)
SUPPORTING = 5  # passages cited for an answer when its round cited none
BRIDGE_PASSAGES = 2  # a next hop's round: passages about the bridge, shown first
BRIDGE_POOL = 5  # full-text hits for the bridge's name read for them


Mode = Literal["loop", "naive", "judged"]


@dataclass
class AskOptions:
    """The loop's knobs."""

    mode: Mode = "loop"
    max_rounds: int = 3
    checked_rounds: int = 1  # rounds whose answer is checked; later ones go on only for a hop
    k: int = 10  # passages round 1 shows first (naive's vector top-k, or the graph walk's)
    extra: int = 0  # round 1: more candidates from the other retrievers, after those k
    first: FirstList = "graph"  # round 1's first k (measured best): see ``first_round``
    follow_up: int = 6  # later rounds: new candidates beside the cited ones
    context_tokens: int = 2500
    expand: bool = True
    evolve_graph: bool = False  # extract triplets from cited chunks at question time
    record: bool = True  # write the decision back (off: a probe that leaves the memory as is)
    retrieve: RetrieveOptions = field(default_factory=RetrieveOptions)
    memory: MemoryOptions = field(default_factory=MemoryOptions)


@dataclass
class _State:
    question: str
    temporal: bool
    memory: MemorySession
    k: int
    recipe: Recipe = DEFAULT_RECIPE  # the retrievers that run: the planner's choice
    rounds: list[Round] = field(default_factory=list)
    cues: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    expanded: list[str] = field(default_factory=list)
    store_ms: float = 0.0
    llm_ms: float = 0.0
    pending_store_ms: float = 0.0  # time not yet booked on a round
    pending_llm_ms: float = 0.0
    tokens_mark: int = 0
    vectors: dict[str, list[float]] = field(default_factory=dict)  # query -> embedding
    fused: set[str] = field(default_factory=set)  # every fused chunk, before exclusion
    retrieve_ms: float = 0.0
    checks: list[Check | None] = field(default_factory=list)  # per round
    asking: str = ""  # the question the next answer call asks: the question, or a next hop
    asked: list[str] = field(default_factory=list)  # per round, the question it asked
    first: str = ""  # the first hop's question, once asked (``first_hop``)

    @property
    def hopping(self) -> bool:
        """Whether the next answer call asks a next hop's question (or the first hop's)."""
        return self.asking != self.question

    @property
    def bridging(self) -> bool:
        """Whether the next answer call asks a next hop's question about the last answer
        (a bridge), not the first hop's."""
        return self.hopping and self.asking != self.first

    def used(self) -> list[Candidate]:
        """Every candidate judged used, earliest round first, once."""
        seen: dict[str, Candidate] = {}
        for r in self.rounds:
            for c in _cited(r):
                seen.setdefault(c.id, c)
        return list(seen.values())

    def rejected(self) -> set[str]:
        return {
            r.candidates[v.ref - 1].id
            for r in self.rounds
            for v in r.judgement.verdicts
            if v.verdict == "rejected" and 1 <= v.ref <= len(r.candidates)
        } - {c.id for c in self.used()}


class AskLoop:
    """Answers questions over a built graph and records each answer in it."""

    def __init__(
        self,
        store: GraphStore,
        embedder: Embedder,
        llm: LLM,
        options: AskOptions | None = None,
        on_round: Callable[[Round], None] | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.llm = llm
        self.options = options or AskOptions()
        self.on_round = on_round

    def ask(self, question: str) -> Decision:
        """Answer ``question``; the decision, its steps and verdicts are written atomically
        (unless ``record`` is off)."""
        started = time.perf_counter()
        tokens_before = self.llm.ledger.total().total_tokens
        state = self.start(question.strip())
        state.tokens_mark = tokens_before
        if self.options.mode == "naive":
            self.naive_round(state)
        elif self.options.mode == "judged":
            self.judged_round(state)
        else:
            for number in range(1, self.options.max_rounds + 1):
                queries = self.next_queries(state)
                found = self.retrieve(state, queries)
                asked, reply = self.read(state, found)
                final = number == self.options.max_rounds
                judgement = grade(state.question, found, reply, None)
                hop = "" if final else self.hop(state, found, judgement)
                if not hop and number == 1 and self.first_hop_pays(state, found, judgement):
                    hop = state.first = first_hop(state.question)
                # a next hop goes on whatever a check would say: no check call for it
                checked = not final and not hop and number <= self.options.checked_rounds
                check = self.check(state, asked, reply) if checked else None
                if check is not None:
                    judgement = grade(state.question, found, reply, check)
                state.checks.append(check)
                self.remember(state, number, queries, found, judgement)
                if final or not self.goes_on(state, judgement, check, hop):
                    break
                state.asking = hop or state.question
                self.evolve(state, judgement)
        chosen, answer, citations = self.answer(state)
        last = state.rounds[-1]  # the answer's time and tokens count with the last round
        last.store_ms += state.pending_store_ms
        last.llm_ms += state.pending_llm_ms
        last.tokens += self.llm.ledger.total().total_tokens - state.tokens_mark
        decision = self.decision(state, chosen, answer, citations, started, tokens_before)
        if not self.options.record:
            return decision
        with self._timed(state, "store"):
            write_decision(
                self.store, decision, agent_model=self.llm.model_id, prompt_version=prompt_version()
            )
        return decision

    # -- the steps ------------------------------------------------------------
    def start(self, question: str) -> _State:
        """Embed the question, assign its query type and let the planner (in full memory
        mode) pick the retrieval recipe; the naive baseline reads no memory."""
        opts = self.options
        mode = "off" if opts.mode == "naive" else opts.memory.mode
        memory = MemorySession(self.store, replace(opts.memory, mode=mode))
        state = _State(
            question,
            temporal=bool(TEMPORAL.search(question)),
            memory=memory,
            k=opts.k,
            asking=question,
        )
        with self._timed(state, "store"):
            memory.start(question, self._embed(state, [question])[0])
        state.recipe = memory.config
        state.k = state.recipe.k(opts.k)
        return state

    def next_queries(self, state: _State) -> list[str]:
        """Round 1: the question. Later: the question (anchor) and the follow-up query,
        which is the next hop's question when the round asks one."""
        if not state.rounds:
            return [state.question]
        if state.hopping:
            return [state.question, state.asking]
        return [state.question, *_follow_up(state)[:1]]

    def retrieve(self, state: _State, queries: list[str]) -> list[Candidate]:
        """Hybrid retrieval for each query, fused with the graph expansion; earlier used
        evidence stays, earlier rejected evidence is not offered again."""
        started = time.perf_counter()
        with self._timed(state, "store"):
            vectors = self._embed(state, queries)
            lists = [
                rank_lists(self.store, q, v, self.options.retrieve, state.recipe)
                for q, v in zip(queries, vectors, strict=True)
            ]
            if state.expanded:
                lists.append({"expand": state.expanded})
            carried = state.used()
            carried_ids = {c.id for c in carried}
            exclude = state.rejected() | carried_ids
            width = state.k + self.options.extra
            fused = [f for f in fuse(lists, FUSE_ALL) if f[0] not in exclude]
            if not state.rounds:  # the list that measures best first (naive's top-k
                # when the store has no graph: round 1 then sends naive's prompt)
                hits = self.store.vector_search("Chunk", vectors[0], state.k)
                near = {h.id: h.similarity for h in hits}
                head = first_round(lists[0], list(near), state.k, self.options.first)
                fused = _head_first(fused, [(c, near.get(c, 0.0)) for c in head])
            else:  # the follow-up's own nearest passages first, even ones shown uncited
                # before: they may hold the next hop, which the question's answer did not
                hits = self.store.vector_search("Chunk", vectors[-1], self.options.follow_up)
                nearest = [(h.id, h.similarity) for h in hits if h.id not in carried_ids]
                if state.bridging:  # a next hop: the bridge's passages first
                    about = self._about(state.rounds[-1].judgement.draft_answer, carried_ids)
                    nearest = about + [n for n in nearest if n[0] not in dict(about)]
                fused = _head_first(fused, nearest)
            state.fused.update(f[0] for f in fused)
            excluded = state.memory.exclude([f[0] for f in fused])
            fused = [f for f in fused if f[0] not in excluded]
            room = width if not state.rounds else self.options.follow_up
            fresh = candidates(self.store, fused[:room], self.options.retrieve.max_triplets)
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

    def _about(self, bridge: str, carried: set[str]) -> list[tuple[str, float]]:
        """Passages about the bridge: full-text hits whose title is its name ("Laura
        Knight", "True Grit (1969 film)" for "True Grit"), not those that only share a
        rare word with it ("Staunton, Illinois" for "John George Lynch-Staunton")."""
        named = self.store.fulltext_search("Chunk", bridge, BRIDGE_POOL)
        found = candidates(self.store, [(h.id, h.score, [TEXT_CHUNK]) for h in named], 0)
        return [
            (c.id, c.score)
            for c in found
            if c.id not in carried
            and (grounding(bridge, [c.title]) == 1.0 or grounding(c.title, [bridge]) == 1.0)
        ][:BRIDGE_PASSAGES]

    def read(self, state: _State, found: list[Candidate]) -> tuple[list[dict[str, str]], Answer]:
        """The answer call: a short answer and the passages it rests on. A next hop's
        round asks the hop's own question (self-ask), with no notes, over the passages
        that name the bridge (or, for the first hop, what it names); when the answer is
        only the name the hop asks about ("Who was married to Laura Knight?" answered
        "Laura Knight"), it is asked once more with a note saying so. A later round of the
        question itself gets the check's missing fact, and that note when the last answer
        was a name from the question."""
        cues = [f"Still needed: {c.missing}" for c in state.checks if c and c.missing][-1:]
        last = state.rounds[-1].judgement.draft_answer if state.rounds else ""
        if not state.hopping and restates_question(state.question, last):
            cues.append(_asks_about(last))  # "Avery Brundage" to "... Avery Brundage is in?"
        if state.bridging:
            shown = _naming(found, [last])
        elif state.hopping:  # the first hop: passages on what it names ("Anna Benson's")
            shown = _naming(
                found, [_OWNER_TAIL.sub("", e) for e in question_entities(state.asking)]
            )
        else:
            shown = found
        asked, reply = self._answer(state, shown, [] if state.hopping else cues)
        if state.bridging and restates_question(state.asking, reply.answer):
            asked, reply = self._answer(state, shown, [_asks_about(last)], notes_last=True)
        index = {c.id: n for n, c in enumerate(found, start=1)}
        reply.citations = [index[shown[n - 1].id] for n in reply.citations if 1 <= n <= len(shown)]
        if state.hopping:
            reply.citations = _recited(reply, found)
        return asked, reply

    def _answer(
        self, state: _State, found: list[Candidate], cues: list[str], *, notes_last: bool = False
    ) -> tuple[list[dict[str, str]], Answer]:
        """One answer call for the question the round asks (``notes_last``: the cues
        after the passages); asked again, as its next turn, when the answer is the
        prompt's worked example's. The conversation asked is returned (a check goes on
        from it)."""
        asked = answer_messages(
            state.asking,
            found,
            cues,
            "",
            temporal=bool(TEMPORAL.search(state.asking)) if state.hopping else state.temporal,
            budget_tokens=self.options.context_tokens,
            notes_last=notes_last,
        )

        def ask(messages: list[dict[str, str]]) -> Answer:
            with self._timed(state, "llm"):
                return self.llm.structured("answer", messages, Answer, max_tokens=ANSWER_MAX_TOKENS)

        reply = ask(asked)
        if copies_example(reply.answer, found, "answer"):
            asked = example_copied_messages(asked, reply)
            reply = ask(asked)
        note = off_kind(state.asking, reply.answer)
        if note:  # "Disney" to "Are Aladdin and Song of the South by the same company?"
            asked = next_turn(asked, reply, note)
            reply = ask(asked)
        return asked, reply

    def check(self, state: _State, asked: list[dict[str, str]], reply: Answer) -> Check:
        """The answer's check, as the next turn of its conversation: a missing link and a
        follow-up query that names what it is about. A missing fact or query taken from
        the prompts' own examples ("Ana Roth born in", "1950") and from nothing the
        question and passages say is dropped."""
        messages = check_messages(asked, reply, temporal=state.temporal)
        with self._timed(state, "llm"):
            out = self.llm.structured("check", messages, Check, max_tokens=CHECK_MAX_TOKENS)
        shown = [m["content"] for m in asked if m["role"] == "user"][:1]  # the passages
        prompts = " ".join(
            [prompt("check"), *(m["content"] for m in asked if m["role"] == "system")]
        )
        for name in ("missing", "query"):
            if echoes(getattr(out, name), prompts, shown):
                setattr(out, name, "")
        return out

    def remember(
        self, state: _State, number: int, queries: list[str], found: list[Candidate], j: Judgement
    ) -> None:
        """Keep the round (with the time spent on it) and its memory cue."""
        tokens = self.llm.ledger.total().total_tokens
        round_ = Round(
            number,
            queries,
            found,
            j,
            expanded=list(state.expanded),
            store_ms=state.pending_store_ms,
            llm_ms=state.pending_llm_ms,
            tokens=tokens - state.tokens_mark,
        )
        state.pending_store_ms = state.pending_llm_ms = 0.0
        state.tokens_mark = tokens
        state.rounds.append(round_)
        state.asked.append(state.asking)
        cue = j.cue or (f"Still missing: {j.missing}" if j.missing else "")
        if cue:
            state.cues.append(cue)
        if self.on_round is not None:
            self.on_round(round_)

    def goes_on(self, state: _State, j: Judgement, check: Check | None, hop: str = "") -> bool:
        """Another round only when it can pay, and with a query not asked before (the
        check's, else the question's entities the citations miss): the answer is a step
        on the way (``bridge_hop``: the question that remains is asked next), the
        evidence does not support the answer (none, not stated by what it cites, or only
        a name from the question), or the check names a missing link that says more than
        the question and the answer already do. The model's "complete" alone does not
        stop a round that has no supported answer. An unchecked round (after
        ``checked_rounds``) goes on only for a next hop: a hop's answer may be a bridge
        too, in a chain of three or four."""
        if hop:
            return True
        if check is None or not _follow_up(state):
            return False
        if not grounded(state.question, j):
            return True
        return not check.complete and not restates(check.missing, state.question, j.draft_answer)

    def first_hop_pays(self, state: _State, found: list[Candidate], j: Judgement) -> bool:
        """Whether round 1 goes on to the question's first hop (two more rounds must
        fit): yes, unless its answer (no bridge) is stated by a cited passage that also
        names what the question names. Such an answer may be the answer, so it is
        checked instead (hopping from them replaced right ones on MuSiQue: "Bill
        Pullman", from the passage on A League of Their Own, became "Harvey Keitel"). A
        date stated by a passage on someone else ("1914" for the mother of Joseph
        Ferdinand Leopold of Bavaria, from Franz Ferdinand's) is still a guess."""
        if len(state.rounds) + 3 > self.options.max_rounds:
            return False
        if not grounded(state.question, j):
            return True
        names = question_entities(state.question)
        return not any(
            states(j.draft_answer, [said]) and (not names or any(states(n, [said]) for n in names))
            for said in (_said(c) for c in _used(found, j))
        )

    def hop(self, state: _State, found: list[Candidate], j: Judgement) -> str:
        """The next hop's question (``bridge_hop``) of the round's answer (``j``, its grade
        before any check) when a passage it cites supports it, not asked before; "" when
        there is none. The first hop's answer is a bridge of the question itself: the
        question with the first hop's description replaced by it is asked next."""
        if not grounded(state.asking, j):
            return ""
        if state.hopping and not state.bridging:  # the first hop's answer
            if restates_question(state.first, j.draft_answer, _OWNED_PEOPLE):
                return ""  # "Osbert Sitwell's brother" for his sibling names no one
            phrase = state.first.removeprefix(_FIRST_HOP).rstrip("?")
            hop = state.question.replace(phrase, j.draft_answer, 1)
            hop = "" if hop == state.question else hop
        else:
            hop = bridge_hop(state.asking, j.draft_answer, _used(found, j))
        return "" if hop.lower() in {q.lower() for q in state.queries} else hop

    def evolve(self, state: _State, j: Judgement) -> None:
        """The evolving sub-graph (extract triplets from used chunks that have none), then
        QRMeM's expansion toward the relation that best matches the diagnosed gap."""
        used = state.used()
        if self.options.evolve_graph and used:
            self.evolve_graph(state, [c.id for c in used])
        anchors = used or state.rounds[-1].candidates[:EXPAND_ANCHORS]
        if self.options.expand:
            with self._timed(state, "store"):
                state.expanded = self.expand(state, j, [c.id for c in anchors])

    def expand(self, state: _State, j: Judgement, chunk_ids: list[str]) -> list[str]:
        """Chunks behind the relations (of the anchors' entities) most similar to
        [question; missing; entities]."""
        entities = self.store.run("ask/chunk_entities", {"ids": chunk_ids})
        if not entities:
            return []
        relations = self.store.run(
            "ask/entity_relations", {"ids": [e["id"] for e in entities], "limit": EXPAND_POOL}
        )
        if not relations:
            return []
        target = " ".join(
            [state.question, j.missing, *(e["name"] for e in entities[:EXPAND_ENTITIES])]
        )
        texts = [f"{r['name']} {r['predicate']} {r['neighbour_name']}" for r in relations]
        vectors = self.embedder.embed([target, *texts])
        goal = vectors[0]
        scored = sorted(
            zip(relations, vectors[1:], strict=True),
            key=lambda rv: -sum(a * b for a, b in zip(goal, rv[1], strict=True)),
        )
        triplets = [t for r, _ in scored[:EXPAND_RELATIONS] for t in (r["triplet_ids"] or [])]
        rows = self.store.run("ask/chunks_for_triplets", {"ids": triplets})
        return list(dict.fromkeys(r["chunk"] for r in rows))

    def evolve_graph(self, state: _State, chunk_ids: list[str]) -> None:
        """Extract and write triplets for used chunks that have none yet."""
        with self._timed(state, "store"):
            rows = self.store.run("ask/chunk_extraction_status", {"ids": chunk_ids})
        todo = [
            ChunkText(r["id"], r["title"] or "", r["text"]) for r in rows if r["extraction"] != "ok"
        ][:EVOLVE_CHUNKS]
        if not todo:
            return
        with self._timed(state, "llm"):
            results = extract_chunks(self.llm, todo)
        with self._timed(state, "store"):
            state.rounds[-1].extracted = write_extractions(self.store, self.embedder, results)

    def answer(self, state: _State) -> tuple[Round | None, str, list[Candidate]]:
        """The first answer given (round 1 saw the naive baseline's passages), replaced by
        a later round's only when that one has better support (see ``better``), else an
        abstention (no round): a weak later round never throws away a supported earlier
        answer. Returns the chosen round, the answer and the passages it cites."""
        rounds = zip(state.rounds, state.asked, strict=True)
        # the first hop's round answers a part of the question, not the question
        answered = [
            (r, asked)
            for r, asked in rounds
            if r.judgement.draft_answer and not (state.first and asked == state.first)
        ]
        if not answered:
            return None, ABSTAIN_ANSWER, []
        chosen = answered[0][0]
        for r, asked in answered[1:]:
            if better(state.question, r, chosen, asked):
                chosen = r
        j = chosen.judgement
        return (
            chosen,
            j.draft_answer,
            _cited(chosen) or _supporting(chosen.candidates, j.draft_answer),
        )

    def naive_round(self, state: _State) -> None:
        """Baseline: vector top-k chunks and one answer call, recorded like a loop round."""
        started = time.perf_counter()
        with self._timed(state, "store"):
            vector = self._embed(state, [state.question])[0]
            hits = self.store.vector_search("Chunk", vector, self.options.k)
            found = candidates(
                self.store,
                [(h.id, h.similarity, [VECTOR_CHUNK]) for h in hits],
                self.options.retrieve.max_triplets,
            )
        state.fused.update(h.id for h in hits)
        state.retrieve_ms += (time.perf_counter() - started) * 1000
        state.queries.append(state.question)
        messages = answer_messages(
            state.question,
            found,
            [],
            "",
            temporal=state.temporal,
            budget_tokens=self.options.context_tokens,
        )
        with self._timed(state, "llm"):
            out = self.llm.structured("answer", messages, Answer, max_tokens=ANSWER_MAX_TOKENS)
        out.citations = [n for n in out.citations if 1 <= n <= len(found)]
        judgement = grade(state.question, found, out, None)
        state.checks.append(None)
        self.remember(state, 1, [state.question], found, judgement)

    def judged_round(self, state: _State) -> None:
        """ROZA's vanilla RAG, and with memory its Ours-RG (evidence profiles beside the
        passages) and Ours-Full (the planner's exclusions too): the naive baseline's
        passages and one call that judges every passage, with a reason, and answers."""
        started = time.perf_counter()
        with self._timed(state, "store"):
            vector = self._embed(state, [state.question])[0]
            hits = self.store.vector_search("Chunk", vector, state.k)
            state.fused.update(h.id for h in hits)
            excluded = state.memory.exclude([h.id for h in hits])
            ranked = [(h.id, h.similarity, [VECTOR_CHUNK]) for h in hits if h.id not in excluded]
            found = candidates(self.store, ranked, self.options.retrieve.max_triplets)
            profiles = state.memory.profiles([c.id for c in found])
        for c in found:
            c.profile = profiles.get(c.id, "")
        state.retrieve_ms += (time.perf_counter() - started) * 1000
        state.queries.append(state.question)
        messages = judged_messages(
            state.question,
            found,
            temporal=state.temporal,
            budget_tokens=self.options.context_tokens,
        )
        cap = ANSWER_MAX_TOKENS + VERDICT_TOKENS * len(found)
        output = judged_answer(len(found))  # one verdict per passage, then the answer
        with self._timed(state, "llm"):
            out = self.llm.structured("judge", messages, output, max_tokens=cap)
        if copies_example(out.answer, found, "judged"):  # asked again without the example
            with self._timed(state, "llm"):
                out = self.llm.structured(
                    "judge", without_example(messages), output, max_tokens=cap
                )
        verdicts = _one_verdict_per_candidate([v.as_verdict() for v in out.verdicts], len(found))
        used = [v.ref for v in verdicts if v.verdict == "used"]
        judgement = grade(
            state.question, found, Answer.model_construct(answer=out.answer, citations=used), None
        )
        given = {v.ref: v for v in verdicts}
        judgement.verdicts = [given.get(v.ref, v) for v in judgement.verdicts]
        state.checks.append(None)
        self.remember(state, 1, [state.question], found, judgement)

    def decision(
        self,
        state: _State,
        chosen: Round | None,
        answer: str,
        cited: list[Candidate],
        started: float,
        tokens_before: int,
    ) -> Decision:
        """Everything the graph keeps about this answer (graded as the round it came from)."""
        final = (chosen or state.rounds[-1]).judgement
        return Decision(
            id=uuid.uuid4().hex,
            question=state.question,
            answer=answer,
            abstained=chosen is None,
            sufficiency=final.sufficiency,
            confidence=final.confidence,
            mode=self.options.mode,
            rounds=state.rounds,
            citations=[Citation(c.id, c.title, c.text) for c in cited],
            cues=state.cues,
            temporal=state.temporal,
            tokens=self.llm.ledger.total().total_tokens - tokens_before,
            latency_ms=(time.perf_counter() - started) * 1000,
            store_ms=state.store_ms,
            llm_ms=state.llm_ms,
            model=self.llm.model_id,
            created_at=int(time.time() * 1000),
            retrieval=self.retrieval(state),
        )

    def retrieval(self, state: _State) -> Retrieval:
        """What retrieval and the memory did, for the RETRIEVED_VIA edge."""
        memory = state.memory
        judged = [c for r in state.rounds for c in r.candidates]
        qt = memory.query_type
        return Retrieval(
            memory=memory.mode,
            query_type="" if qt is None else qt.id,
            query_type_new=qt is not None and qt.new,
            query_vector=state.vectors.get(state.question, []),
            config=memory.config.name,
            explored=memory.plan.explored,
            filters=memory.config.filters(self.options.k, list(RETRIEVERS)),
            excluded=list(memory.excluded),
            candidates_pre=len(state.fused),
            candidates_post=len({c.id for c in judged}),
            judged=len(judged),
            profiled=sum(1 for c in judged if c.profile),
            latency_ms=state.retrieve_ms,
        )

    def _embed(self, state: _State, texts: list[str]) -> list[list[float]]:
        """Embeddings of ``texts``, each computed once per question."""
        todo = [t for t in dict.fromkeys(texts) if t not in state.vectors]
        if todo:
            state.vectors.update(zip(todo, self.embedder.embed(todo), strict=True))
        return [state.vectors[t] for t in texts]

    @contextmanager
    def _timed(self, state: _State, kind: Literal["store", "llm"]) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            ms = (time.perf_counter() - started) * 1000
            if kind == "llm":
                state.llm_ms += ms
                state.pending_llm_ms += ms
            else:
                state.store_ms += ms
                state.pending_store_ms += ms


def grade(question: str, found: list[Candidate], reply: Answer, check: Check | None) -> Judgement:
    """A round's judgement from its answer, its citations and the answer's check.

    Cited passages are used, the others rejected. The confidence is how much of the
    answer the best cited passage states (its grounding); the grade is EXACT when one cited
    passage states it, INFERRABLE when it rests on several, PARTIAL when the check found
    a missing link or the citations do not state the answer, NONE without an answer. The
    coverage says which entities the question names the cited passages mention.
    """
    answer = "" if reply.abstain else reply.answer.strip()
    cited = [n for n in reply.citations if 1 <= n <= len(found)]
    share = 1.0 / len(cited) if cited else 0.0
    verdicts = [
        Verdict(
            ref=n,
            verdict="used",
            reason=f"cited for the answer {answer!r}"[:REASON_CHARS],
            confidence_delta=round(share, 2),
        )
        if n in cited
        else Verdict(
            ref=n,
            verdict="rejected",
            reason="not cited for the answer" if answer else "no answer in it",
        )
        for n in range(1, len(found) + 1)
    ]
    each = [grounding(answer, [found[n - 1].text]) for n in cited] if answer else []
    confidence = max(each, default=0.0)
    stated = [g for g in each if g >= GROUNDED]
    if not answer:
        sufficiency = Sufficiency.PARTIAL if cited else Sufficiency.NONE
    elif (check is not None and not check.complete) or confidence < GROUNDED:
        sufficiency = Sufficiency.PARTIAL
    elif stated and len(cited) == 1:
        sufficiency = Sufficiency.EXACT
    else:
        sufficiency = Sufficiency.INFERRABLE
    missing = "" if check is None or check.complete else check.missing.strip()
    query = "" if check is None else check.query.strip()  # kept for an unsupported answer
    if not answer and not query:
        query = missing  # with nothing answered, the missing fact is the search
    cue = f"Answer {answer!r} from passages {cited}" if answer else ""
    said = [_said(found[n - 1]) for n in cited]
    coverage = [
        EntityCoverage(entity=e, covered=grounding(e, said) >= GROUNDED)
        for e in question_entities(question)
    ]
    return Judgement(
        verdicts=verdicts,
        draft_answer=answer,
        sufficiency=sufficiency,
        confidence=confidence,
        coverage=coverage,
        missing=missing,
        probes=[query] if query else [],
        cue=cue,
    )


def grounding(answer: str, texts: list[str]) -> float:
    """The share of the answer's (normalised) words that the texts state; yes and no
    count as stated (no passage says "yes")."""
    words = normalize_answer(answer).split()
    if not words:
        return 0.0
    if words in (["yes"], ["no"]):
        return 1.0 if texts else 0.0
    stated = set(normalize_answer(" ".join(texts)).split())
    return sum(1 for w in words if w in stated) / len(words)


_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "by",
        "with",
        "from",
        "and",
        "or",
        "is",
        "was",
        "were",
        "are",
        "be",
        "been",
        "who",
        "whom",
        "whose",
        "what",
        "which",
        "where",
        "when",
        "why",
        "how",
        "did",
        "does",
        "do",
        "that",
        "this",
        "it",
        "its",
        "as",
        "than",
        "still",
        "needed",
        "need",
        "information",
        "missing",
        "about",
    ]
)


def _stems(text: str) -> set[str]:
    """Content words, cut to ``STEM_CHARS`` letters."""
    return {w[:STEM_CHARS] for w in normalize_answer(text).split() if w not in _STOPWORDS}


def restates(missing: str, question: str, answer: str) -> bool:
    """Whether a "missing" diagnosis only restates the question and the answer (a small
    model's way of saying "nothing", e.g. "Lise Meitner worked with Otto Hahn")."""
    said = _stems(missing)
    return not said or said <= _stems(question) | _stems(answer)


_DETERMINERS = frozenset(["the", "a", "an"])
# heads of descriptions that name a time, which a name cannot replace ("the end of WW2")
_TIMES = frozenset(
    ["end", "start", "beginning", "time", "middle", "height", "year", "day", "date", "era"]
)
# heads of descriptions that are the thing itself ("the name of the 1999 film ..."): the
# question's own target, not a hop before it
_ITSELF = frozenset(["name", "title"])
_RELATIVE = frozenset(["who", "whom", "whose", "which", "that", "where", "when"])
_LINKS = _RELATIVE | frozenset(
    ["of", "in", "on", "at", "by", "for", "from", "with", "behind", "to"]
)
_CLAUSE_TAIL = 3  # words after the name that still end a relative clause
_CONNECTORS = 2  # words without a stem ("in", "how", "a") that a name runs over
_TOKEN = re.compile(r"\S+")
_OWNED = 3  # words after a possessive name that a description keeps
_POSSESSIVE = re.compile(r"['\u2019]s\W*$")
_FIRST_HOP = "What is the name of "
# people a possessive name owns, through whom a question asks ("When did Margaret
# Verney's father die?"), and the words before them ("maternal grandfather")
_OWNED_PEOPLE = frozenset(
    [
        "father",
        "mother",
        "parent",
        "husband",
        "wife",
        "spouse",
        "partner",
        "son",
        "daughter",
        "child",
        "brother",
        "sister",
        "sibling",
        "grandfather",
        "grandmother",
        "grandson",
        "granddaughter",
        "uncle",
        "aunt",
        "nephew",
        "niece",
        "cousin",
        "stepfather",
        "stepmother",
        "father-in-law",
        "mother-in-law",
        "director",
        "composer",
        "performer",
        "author",
        "founder",
        "creator",
        "producer",
        "writer",
        "singer",
    ]
)
_KIN_MODIFIERS = frozenset(["paternal", "maternal"])
_OWNER_TAIL = re.compile(r"(['\u2019]s)?\W*$")  # "father's" and "father?" are "father"


def _stem(token: str) -> str:
    """A token's crude stem (``_stems``'s), "" for a stopword or punctuation."""
    words = [w for w in normalize_answer(token).split() if w not in _STOPWORDS]
    return words[0][:STEM_CHARS] if words else ""


def _name_end(stems: list[str], at: int, names: set[str]) -> int:
    """Where the name that starts at token ``at`` ends, over connectors ("Barney in How I
    Met Your Mother", "Ruby Loftus Screwing a Breech Ring")."""
    end = at
    while True:
        k = end + 1
        while k < len(stems) and not stems[k] and k - end <= _CONNECTORS:
            k += 1
        if k >= len(stems) or stems[k] not in names:
            return end
        end = k


def _read_question(question: str) -> tuple[set[str], list[re.Match[str]], list[str], list[str]]:
    """What the hop rules read in a question: the stems of the names it names, its
    tokens, their words and each word's stem."""
    names = {s for e in question_entities(question) for s in _stems(e)}
    tokens = list(_TOKEN.finditer(question))
    words = [t.group(0) for t in tokens]
    return names, tokens, words, [_stem(w) for w in words]


def bridge_hop(question: str, answer: str, cited: list[Candidate]) -> str:
    """The question that remains when the answer is a bridge (self-ask, without asking the
    model to decompose, which a 1.5B cannot): the question with a description replaced by
    the answer. "What is the seat of the county where Van Hook Township is located?",
    answered "Mountrail County" from the passage titled "Van Hook Township", becomes
    "What is the seat of Mountrail County?".

    The description is a noun phrase of the question ("the county ..."; a lower-case word
    after the article) that runs, over a link word ("of", "that", "where"; not "the song
    The Story", where the name is the thing itself), to a name which a cited passage
    stating the answer says, then on while the cited passages say its words; what the
    question asks besides it must still hold a word that the passages linking the name
    to the answer do not say ("seat"; "chairman" may come from another cited passage,
    about the answer's own chairman): the answer cannot answer it yet. "" when there is
    no such phrase (the answer is final, as far as the evidence can tell)."""
    stating = [c for c in cited if states(answer, [_said(c)])]
    if not answer or not stating or restates_question(question, answer):
        return ""
    if re.search(r"\d", answer):  # a date or a number is not a bridge: "What is 1724 father?"
        return ""
    said_by = {c.id: _stems(_said(c)) for c in cited}
    texts = [f" {normalize_answer(_said(c))} " for c in cited]
    about = set().union(*(said_by[c.id] for c in stating))
    said = set().union(*said_by.values())
    names, tokens, words, stems = _read_question(question)
    for anchor in (j for j, s in enumerate(stems) if s in names and s in about):
        start = _description_start(words, anchor)
        if start is None:
            continue
        end = _description_end(words, stems, names, start, anchor, said, texts)
        # the passages that link the name to the answer must leave the rest unsaid
        linking = set().union(*(said_by[c.id] for c in stating if stems[anchor] in said_by[c.id]))
        if any(s and s not in linking for s in stems[:start] + stems[end + 1 :]):
            rest = question[tokens[end].end() :]
            if end == len(words) - 1 and words[end][-1:] in "?.!":
                rest = words[end][-1]
            return f"{question[: tokens[start].start()]}{answer}{rest}"
    return ""


def _description_start(words: list[str], anchor: int) -> int | None:
    """Where the description that runs to the name at ``anchor`` starts: the innermost
    noun phrase ("the county ...") before it, over a link word (not "the song The Story",
    where the name is the thing itself, nor "the name of ...", which is the thing); None
    when there is none. Words inside a quoted title are the title's: "the book titled
    "... Targeted by the Clinton Machine"" has no link to "Clinton"."""
    quoted = _in_quotes(words)
    starts = [
        i
        for i in range(anchor - 1)
        if i not in quoted
        and words[i].lower() in _DETERMINERS
        and words[i + 1][:1].islower()
        and normalize_answer(words[i + 1]) not in _TIMES
    ]
    # not an indefinite phrase inside another's clause ("the governor who passed a law
    # in honor of Donda West": the governor is the description, not the law)
    starts = [
        i
        for i in starts
        if words[i].lower() == "the"
        or not any(w.lower() in _RELATIVE for w in words[starts[0] : i])
    ]
    if (
        not starts
        or words[starts[-1] + 1].lower() in _ITSELF
        or not any(words[i] in _LINKS for i in range(starts[-1] + 2, anchor) if i not in quoted)
    ):
        return None
    return starts[-1]


def _in_quotes(words: list[str]) -> set[int]:
    """The positions of the words that lie inside quotation marks, the marks' own included."""
    inside: set[int] = set()
    open_ = False
    for i, word in enumerate(words):
        marks = sum(word.count(m) for m in _QUOTES)
        if open_ or (marks and word[:1] in _QUOTES):
            inside.add(i)
        if marks % 2:
            open_ = not open_
    return inside


def _description_end(
    words: list[str],
    stems: list[str],
    names: set[str],
    start: int,
    anchor: int,
    said: set[str] | None = None,
    texts: list[str] | None = None,
) -> int:
    """Where the description that starts at ``start`` and names the name at ``anchor``
    ends: after the name, or after its relative clause's last words ("... where Van Hook
    Township is located"), read with the passages' words when there are passages."""
    end = _name_end(stems, anchor, names)
    if texts and _POSSESSIVE.search(words[end]):  # "Study in Brown's record label", as
        # the passages write it (not "Breakfast at Tiffany's win")
        owner = end
        while (
            end + 1 < len(words)
            and end - owner < _OWNED
            and words[end + 1][:1].islower()
            and _written(words[end : end + 2], texts)
        ):
            end += 1
    relative = [i for i in range(start + 1, anchor) if words[i].lower() in _RELATIVE]
    verb_first = relative and any(s and s not in names for s in stems[relative[-1] + 1 : anchor])
    if verb_first:
        # "the team that uses Dick's Sporting Goods Park play for": the clause ends with
        # the name ("play for" is the question's), which runs on over a word the passages
        # write after it ("Miracle on 34th street")
        while end + 1 < len(words) and texts and _written(words[end : end + 2], texts):
            end += 1
    elif relative:
        # "... that Craig Westcarr played for": the clause's words the passages say
        while end + 1 < len(words) and said and (not stems[end + 1] or stems[end + 1] in said):
            end += 1
        tail = words[end + 1 :]
        if len(tail) <= _CLAUSE_TAIL and not any(w[:1].isupper() for w in tail):
            end = len(words) - 1  # "... where Van Hook Township is located"
    return end


def first_hop(question: str) -> str:
    """The question's first hop, asked before the rest when the answer to the whole was
    no bridge (self-ask's first step, found in the question's words, not by the model):
    "Who is the sibling of the actress who played Susan Walker in Miracle on 34th
    Street?" asks first "What is the name of the actress who played Susan Walker in
    Miracle on 34th Street?". "" when no description runs to a name."""
    owned = owned_hop(question)
    if owned:
        return owned
    names, tokens, words, stems = _read_question(question)
    for anchor in (j for j, s in enumerate(stems) if s in names):
        start = _description_start(words, anchor)
        if start is None:
            continue
        end = _description_end(words, stems, names, start, anchor)
        if _POSSESSIVE.search(words[end]):
            return ""  # "the company that Study in Brown's ...": what it owns is unknown
        phrase = question[tokens[start].start() : tokens[end].end()].rstrip("?.!, ")
        return f"{_FIRST_HOP}{phrase}?"
    return ""


def owned_hop(question: str) -> str:
    """The first hop of a question about someone a name owns: "What is the name of
    Margaret Verney's father?" for "When did Margaret Verney's father die?" (2Wiki's
    usual form, which ``first_hop``'s descriptions do not cover); "" when the question
    asks for no one so owned, or for no more than that person ("Who is Margaret Verney's
    father?")."""
    names, tokens, words, stems = _read_question(question)
    for anchor in (j for j, s in enumerate(stems) if s in names):
        end = _name_end(stems, anchor, names)
        if not _POSSESSIVE.search(words[end]):
            continue
        k = end + 1
        while k < len(words) and words[k].lower() in _KIN_MODIFIERS:
            k += 1
        person = _OWNER_TAIL.sub("", words[k]) if k < len(words) else ""
        if person.lower() not in _OWNED_PEOPLE:
            return ""
        phrase = question[tokens[anchor].start() : tokens[k].start()] + person
        if not _stems(question.replace(phrase, " ", 1)) - names:
            return ""
        return f"{_FIRST_HOP}{phrase}?"
    return ""


def _naming(found: list[Candidate], names: list[str]) -> list[Candidate]:
    """The passages a hop's answer call reads: those that name what it asks about (the
    bridge, whose relation the hop asks for: "Home Alone Tonight ... duet with Karen
    Fairchild" for "Luke Bryan"; not "Take Me Home Tonight" by Eddie Money, which a 1.5B
    answered from); all of them when none does."""
    naming = [c for c in found if any(grounding(n, [_said(c)]) == 1.0 for n in names)]
    return naming or found


def _written(words: list[str], texts: list[str]) -> bool:
    """Whether a passage (normalised, space-padded) writes these words in a row."""
    phrase = normalize_answer(" ".join(words))
    return bool(phrase) and any(f" {phrase} " in t for t in texts)


def _asks_about(name: str) -> str:
    """The note for an answer that only repeats a name the question asks about."""
    return f"The answer is not {name}: the question asks about {name}."


def _follow_up(state: _State) -> list[str]:
    """The next round's query, not asked before: the last check's follow-up query, else
    the question's entities that the last round's citations do not mention."""
    asked = {q.lower() for q in state.queries}
    j = state.rounds[-1].judgement
    missed = " ".join(c.entity for c in j.coverage if not c.covered)
    options = [*j.probes, missed] if missed else j.probes
    return [p for p in options if p and p.lower() not in asked]


_CONNECTOR = r"(?:of|de|del|da|di|du|la|le|van|von|der|den|the|and|&|on|upon|in)"
_NAME = re.compile(rf"[A-Z0-9][\w'\u2019.-]*(?:\s+(?:{_CONNECTOR}\s+)*[A-Z0-9][\w'\u2019.-]*)*")
_QUOTED = re.compile(r"[\"“]([^\"”]{2,80})[\"”]")
_QUOTES = '"“”'
_OPENERS = _STOPWORDS  # words left out where they open a run of capitalised words


def question_entities(question: str) -> list[str]:
    """The names a question mentions: quoted titles and runs of capitalised words (the
    question word that opens the sentence left out)."""
    found = [m.group(1).strip() for m in _QUOTED.finditer(question)]
    for m in _NAME.finditer(_QUOTED.sub(" ", question)):
        words = m.group(0).rstrip(".").split()
        while words and words[0].lower() in _OPENERS:
            words = words[1:]
        if words:
            found.append(" ".join(words))
    return list(dict.fromkeys(e for e in found if normalize_answer(e)))


# the verbs that open a yes/no question ("Are ...", "Did ...")
_AUXILIARIES = frozenset(
    ["is", "are", "was", "were", "do", "does", "did", "can", "could", "has", "have", "had"]
)
_CHOICE = re.compile(r"\bor\b", re.IGNORECASE)


def off_kind(question: str, answer: str) -> str:
    """The note for an answer of the wrong kind: not yes or no to a yes/no question
    ("Disney" to "Are Aladdin and Song of the South produced by the same company?"),
    or none of the names a choice offers ("1993" to "Was Jamie Curry or Alyaksey
    Vasilewski born first?"); "" when the answer fits, or there is none."""
    words = normalize_answer(answer).split()
    first = question.split(maxsplit=1)[0].lower() if question.strip() else ""
    if not words:
        return ""
    if _CHOICE.search(question) and ("," in question or first in _AUXILIARIES):
        if set(words) & set(normalize_answer(question).split()) - _STOPWORDS:
            return ""
        return (
            f'"{answer}" is not one of the names the question offers: answer with one of '
            "them, or abstain."
        )
    if first in _AUXILIARIES and words not in (["yes"], ["no"]):
        return f'The question asks yes or no, not "{answer}": answer "yes" or "no".'
    return ""


def restates_question(question: str, answer: str, also: frozenset[str] = frozenset()) -> bool:
    """An "answer" that only repeats what the question names (a small model answering
    "Avery Brundage" to "Who leads the organisation Avery Brundage belonged to?"), or
    that and words from ``also``; a question offering a choice ("A or B?") is answered
    from its own words."""
    if _CHOICE.search(question):
        return False
    words = normalize_answer(answer).split()
    return bool(words) and set(words) <= set(normalize_answer(question).split()) | also


def grounded(question: str, j: Judgement) -> bool:
    """Whether a round's answer is supported: a cited passage states it, and it is not
    just a name from the question."""
    return (
        bool(j.draft_answer)
        and j.confidence >= GROUNDED
        and not restates_question(question, j.draft_answer)
    )


def better(question: str, new: Round, old: Round, asked: str = "") -> bool:
    """Whether a later round's answer replaces the one kept: it is supported (and, when
    the round asked a next hop's question, not a name from that question), and the kept
    one is not, or it is the same answer (its grade and citations are the later ones), or
    it builds on it (a passage it cites says the kept answer word for word: the kept
    answer was the bridge to this one, as in a two-hop question). A next hop's question
    names the kept answer itself: its answer replaces it unless it went back, not on: the
    hop's answer is itself a bridge of the question (``bridge_hop``), said by a kept
    passage that links the question to the kept answer (it names what the question
    names). "Paul Bettany" went back from "Jennifer Connelly" for "the spouse of the actor
    that plays Vision"; "Brian Moynihan" (said beside the passage on who bought
    FleetBoston) and "16,801" (the enrollment, said in the passage that links the Miami
    Hurricane to its university) went on."""
    j, kept = new.judgement, old.judgement
    if not grounded(question, j) or (asked and restates_question(asked, j.draft_answer)):
        return False
    if not grounded(question, kept) or j.draft_answer == kept.draft_answer:
        return True  # a supported answer, or the same one confirmed by later evidence
    if asked and asked != question:  # a next hop: its question names the kept answer
        return not bridge_hop(question, j.draft_answer, _linking(question, _cited(old)))
    return states(kept.draft_answer, _cited_texts(new))


def _linking(question: str, passages: list[Candidate]) -> list[Candidate]:
    """The passages that name one of the names the question names (all of them when the
    question names none)."""
    names = question_entities(question)
    if not names:
        return passages
    return [c for c in passages if any(grounding(n, [_said(c)]) >= GROUNDED for n in names)]


def _used(found: list[Candidate], j: Judgement) -> list[Candidate]:
    """The candidates a judgement marks used (the passages its answer cites)."""
    return [
        found[v.ref - 1] for v in j.verdicts if v.verdict == "used" and 1 <= v.ref <= len(found)
    ]


def _cited(round_: Round) -> list[Candidate]:
    """The passages a round's answer cites (its used candidates)."""
    return _used(round_.candidates, round_.judgement)


def _cited_texts(round_: Round) -> list[str]:
    """What each passage a round's answer cites says."""
    return [_said(c) for c in _cited(round_)]


def copies_example(answer: str, found: list[Candidate], prompt_name: str) -> bool:
    """Whether the answer comes from the prompt's worked example and from no passage: a
    small model answers "Graz", the example's answer, to "Where was the father of Prince
    Boris of Leiningen born?" with every gold passage in front of it."""
    return copied(answer, example_text(prompt_name), [_said(c) for c in found])


def copied(said: str, prompt_text: str, texts: list[str]) -> bool:
    """Whether ``said`` is stated by the prompt's own text and by none of the texts."""
    return states(said, [prompt_text]) and not states(said, texts)


def echoes(said: str, prompt_text: str, texts: list[str]) -> bool:
    """Whether every word of ``said`` comes from the prompt's own text and some word from
    none of the texts: a check's "missing" of "1950" or query "Ana Roth born in Graz",
    pieced from the worked examples."""
    return grounding(said, [prompt_text]) == 1.0 and grounding(said, texts) < 1.0


def _said(c: Candidate) -> str:
    """What a passage says: its title and its text."""
    return f"{c.title} {c.text}"


def states(answer: str, texts: list[str]) -> bool:
    """Whether one of the texts says the answer word for word (normalised): "Richland
    County" is not stated by a passage that only says "county"."""
    phrase = normalize_answer(answer)  # single-spaced already
    return bool(phrase) and any(f" {phrase} " in f" {normalize_answer(t)} " for t in texts)


def _head_first(
    fused: list[tuple[str, float, list[str]]], head: list[tuple[str, float]]
) -> list[tuple[str, float, list[str]]]:
    """The fused list with ``head`` first, in its order: round 1's first list (naive's
    vector hits on a store without a graph, so round 1 then sends naive's prompt), or a
    later round's nearest passages."""
    by_id = {f[0]: f for f in fused}
    first = [by_id.get(c, (c, score, [VECTOR_CHUNK])) for c, score in head]
    ids = {c for c, _ in head}
    return first + [f for f in fused if f[0] not in ids]


def _recited(reply: Answer, found: list[Candidate]) -> list[int]:
    """A next hop's citations: when none of the cited passages states the answer and
    others do, those others (the 1.5B answered "Andrew Scheer" citing a passage about
    someone else, with the one that says it in front of it)."""
    texts = [_said(c) for c in found]
    if not reply.answer or any(states(reply.answer, [texts[n - 1]]) for n in reply.citations):
        return reply.citations
    stating = [n for n, t in enumerate(texts, start=1) if states(reply.answer, [t])]
    return stating[:MAX_CITATIONS] or reply.citations


def _supporting(evidence: list[Candidate], answer: str) -> list[Candidate]:
    """The used passages the answer rests on: those stating it (word for word, as
    ``states`` reads it) first, then the others."""
    stating = [c for c in evidence if states(answer, [c.text])]
    return (stating + [c for c in evidence if c not in stating])[:SUPPORTING]


def _one_verdict_per_candidate(verdicts: list[Verdict], count: int) -> list[Verdict]:
    """The first verdict for each candidate number in range (models repeat themselves)."""
    seen: dict[int, Verdict] = {}
    for v in verdicts:
        if 1 <= v.ref <= count:
            seen.setdefault(v.ref, v)
    return [seen[n] for n in sorted(seen)]
