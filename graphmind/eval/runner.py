"""``graphmind eval``: the configurations on the same questions, in one resumable run.

A run directory holds everything: the dataset's corpus as ``corpus.json``, a built
FalkorDB Lite store per configuration (copies of one base build, so the memories of the
configurations never mix), the LLM response cache, ``results.jsonl`` and the report.

With ``store`` (``graphmind eval --store URI``) the run uses one store the user runs
instead, such as a Neo4j Community server's single user database: the corpus is built
there once and the configurations run one after another. Before each, the store is put
back to the base build: the reasoning graph (decisions, steps, queries, query types,
agents) is deleted, and so is what asking added to a chunk-only corpus (triplets and
entities extracted at question time); its node and relationship counts must then equal
the base build's, or the corpus is wiped and built again. So every configuration starts
from the same corpus with an empty memory, as with the copies. The store must be empty
(or hold this run) when the run starts: it is marked with the run and the configuration
whose memory it holds, so an interrupted run resumes where it stopped.

The sequential cluster protocol (ROZA): questions are grouped by query type (the same
online k-means ``ask`` uses) and asked group by group; after each answer the gold
answer is given as feedback, so the memory of the ``profiles`` and ``full``
configurations grows question by question. Every configuration sees the same order.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphmind.ask.loop import AskLoop
from graphmind.ask.options import AskOptions
from graphmind.ask.retrieve import RetrieveOptions, candidates
from graphmind.config import Settings
from graphmind.core.decision import Candidate, Decision
from graphmind.core.errors import BadInputError, ConfigError, LLMError
from graphmind.core.progress import Progress
from graphmind.eval.datasets import EvalQuestion, GoldPassage, gold_hits
from graphmind.eval.metrics import ConsistencyResult, consistency, gold_reuse, recall_at_k
from graphmind.eval.options import CONFIGS, EvalOptions
from graphmind.eval.records import QuestionResult, append_result, load_results, score
from graphmind.eval.report import write_report
from graphmind.eval.rundir import (
    CONSISTENCY_FILE,
    Report,
    Run,
    build_shared,
    build_stores,
    mark,
    reset_shared,
    start_run,
    store_settings,
)
from graphmind.factories import open_store
from graphmind.memory.decisions import final_verdicts
from graphmind.memory.feedback import record_feedback
from graphmind.memory.profiles import ProfileOptions
from graphmind.memory.querytypes import cluster
from graphmind.memory.session import MemoryOptions
from graphmind.store import GraphStore

if TYPE_CHECKING:
    from graphmind.embed import Embedder
    from graphmind.llm import LLM


def run_eval(
    run_dir: Path,
    options: EvalOptions,
    settings: Settings,
    say: Report = lambda _: None,
    *,
    llm: LLM | None = None,
    embedder: Embedder | None = None,
    progress: Progress | None = None,
) -> Path:
    """Run (or resume) an evaluation; returns the report's path. ``llm`` and ``embedder``
    default to the configured ones (the LLM's response cache then lives in the run);
    ``progress`` shows the corpus build."""
    unknown = [c for c in options.configs if c not in CONFIGS]
    if unknown or not options.configs:
        raise BadInputError(f"unknown configuration(s) {unknown}; choose from {', '.join(CONFIGS)}")
    run = start_run(run_dir, options, settings, say)
    from graphmind.factories import make_embedder, make_llm

    embedder = embedder or make_embedder(settings)
    order = _order(run, embedder.embed([q.question for q in run.dataset.questions]))
    if options.store is None:
        build_stores(run, embedder, progress)
    hot_llm = llm  # the consistency runs' LLM: the given one, else uncached and warm
    llm = llm or make_llm(settings, cache_dir=run_dir)
    if llm is None:
        raise ConfigError(
            "no LLM is configured: run scripts/fetch_model.py for the offline model, or set "
            "GRAPHMIND_LLM_BASE_URL and GRAPHMIND_LLM_MODEL"
        )
    done = {r.key for r in load_results(run_dir)}
    total = len(order) * len(options.configs)
    say(f"{len(done)} of {total} answers already in {run_dir}")
    checks: list[ConsistencyResult] | None = None
    if options.store is not None:
        checks = _run_shared(run, embedder, llm, hot_llm, order, done, progress)
    else:
        with ExitStack() as stack:
            stores = {
                c: stack.enter_context(open_store(store_settings(run, c))) for c in options.configs
            }
            _replay(run, stores, embedder, llm, order)
            for position, question in enumerate(order):
                # each question starts cold, as a user's does; the configurations after the
                # first reuse its model context, as a real ask's later calls reuse its first
                llm.reset_context()
                for config in options.configs:
                    if (run.dataset.name, config, question.id) not in done:
                        _answer(run, stores[config], embedder, llm, config, position, order)
            if options.consistency:
                checks = _consistency(run, stores, embedder, order, hot_llm)
    results = [r for r in load_results(run_dir) if r.dataset == run.dataset.name]
    meta = {
        "command": _command(options),
        "dataset": run.dataset.name,
        "source": run.dataset.source,
        "questions": len(order),
        "gold-passage reuse": _share(gold_reuse([q.gold for q in order])),
        "corpus passages": len(run.dataset.corpus),
        "model": llm.model_id,
        "embedder": embedder.spec.name,
        "limit": options.limit,
        "seed": options.seed,
        "k": options.k,
        "max rounds": options.max_rounds,
        "protocol": options.protocol,
        "extraction": options.extract,
        "stores": "one copy of the base build per configuration"
        if options.store is None
        else f"{options.store}: configurations in turn, each from the base build",
        "LLM cache": "shared by the configurations: identical prompts are answered once "
        "(tokens count every request; latency of a repeated prompt is near zero)",
        "model context": "cold at each question; on separate stores the configurations "
        "after the first reuse that question's context, as a real ask's later calls reuse "
        "its first call's: a loop whose round 1 repeats naive's call is timed as its later "
        "calls alone, and its end-to-end time is naive's plus its own",
    }
    return write_report(run_dir, results, meta=meta, consistency=checks)


def _answer(
    run: Run,
    store: GraphStore,
    embedder: Embedder,
    llm: LLM,
    config: str,
    position: int,
    order: Sequence[EvalQuestion],
) -> None:
    """Ask question ``position`` in one configuration and append its result."""
    loop = AskLoop(store, embedder, llm, _ask_options(run.options, config))
    result = _ask(run, loop, config, position, order[position])
    append_result(run.run_dir, result)
    mark = "error" if result.error else ("✓" if result.correct else "✗")
    run.say(
        f"[{position + 1}/{len(order)}] {config:8} {mark} "
        f"F1 {result.f1:.2f} {result.latency_ms / 1000:.1f}s {result.prediction[:60]!r}"
    )


def _replay(
    run: Run,
    stores: dict[str, GraphStore],
    embedder: Embedder,
    llm: LLM,
    order: Sequence[EvalQuestion],
) -> None:
    """Bring each configuration's store up to its recorded answers. A run directory whose
    stores are behind ``results.jsonl`` (they were lost, or the run was restored from a
    record: results and response cache, no stores) asks the answers its stores lack again,
    in the asking order, with gold feedback, so the memory is what the record says before
    the run goes on. Those calls come from the response cache; the record's rows stay."""
    recorded = [r for r in load_results(run.run_dir) if r.dataset == run.dataset.name]
    for config, store in stores.items():
        rows = sorted(
            (r for r in recorded if r.config == config and r.error is None),
            key=lambda r: r.position,
        )
        held = int(store.run("store/count_label", label="Decision")[0]["count"])
        if held >= len(rows):
            continue
        run.say(f"{config}: its store holds {held} of {len(rows)} recorded answers; replaying")
        asked = llm.ledger.total().calls
        changed = 0
        for row in rows[held:]:
            question = order[row.position]
            if question.id != row.question_id:
                raise BadInputError(
                    f"{run.run_dir}: recorded answer {row.question_id} is not question "
                    f"{row.position + 1} of this run's order; use another --run-dir"
                )
            loop = AskLoop(store, embedder, llm, _ask_options(run.options, config))
            changed += _ask(run, loop, config, row.position, question).prediction != row.prediction
        run.say(
            f"{config}: replayed {len(rows) - held} answers; {llm.ledger.total().calls - asked} "
            f"calls asked the model (not in the cache), {changed} answers differ from the record"
        )


def _run_shared(
    run: Run,
    embedder: Embedder,
    llm: LLM,
    hot_llm: LLM | None,
    order: list[EvalQuestion],
    done: set[tuple[str, str, str]],
    progress: Progress | None,
) -> list[ConsistencyResult] | None:
    """The configurations in turn on the one store of ``options.store``, each starting
    from the base build with an empty memory (its consistency probes right after it)."""
    checks: list[ConsistencyResult] = []
    settings = run.settings.model_copy(update={"store": run.options.store})
    with open_store(settings, ensure_schema=False) as store:
        base = build_shared(run, store, embedder, progress)
        for config in run.options.configs:
            todo = [p for p, q in enumerate(order) if (run.dataset.name, config, q.id) not in done]
            meta = store.meta() or {}
            if todo and meta.get("eval_config") != config:
                reset_shared(run, store, embedder, base, progress)
                mark(run, store, config)
                run.say(f"{config}: the store is back to the base build, memory empty")
            for position in todo:
                llm.reset_context()  # each answer starts cold, as a user's question does
                _answer(run, store, embedder, llm, config, position, order)
            if run.options.consistency:
                checks += _consistency(run, {config: store}, embedder, order, hot_llm)
    return checks if run.options.consistency else None


def _order(run: Run, vectors: Sequence[Sequence[float]]) -> list[EvalQuestion]:
    """The asking order: grouped by query type (sequential protocol) or as given."""
    questions = run.dataset.questions
    if run.options.protocol == "given":
        return list(questions)
    labels = cluster(vectors)
    ranked = sorted(range(len(questions)), key=lambda i: (labels[i], i))
    return [questions[i] for i in ranked]


def _ask_options(options: EvalOptions, config: str) -> AskOptions:
    mode, memory = CONFIGS[config]
    profiles = ProfileOptions(top_reasons=options.profile_reasons)
    return AskOptions(
        mode=mode,
        max_rounds=options.max_rounds,
        policy=options.policy,
        explain=False,  # the benchmarks score the short answer; the full one costs a call
        k=options.k,
        memory=MemoryOptions(mode=memory, profiles=profiles),
        retrieve=RetrieveOptions(max_triplets=options.max_triplets),
    )


def _ask(run: Run, loop: AskLoop, config: str, position: int, q: EvalQuestion) -> QuestionResult:
    """Ask one question in one configuration, give the gold feedback, score it."""
    before = loop.llm.ledger.total()
    started = time.perf_counter()
    base: dict[str, Any] = {
        "dataset": run.dataset.name,
        "config": config,
        "question_id": q.id,
        "position": position,
        "category": q.category,
        "question": q.question,
        "answers": q.answers,
        "answerable": q.answerable,
    }
    try:
        decision = loop.ask(q.question)
    except LLMError as exc:
        return QuestionResult(
            **base,
            prediction="",
            abstained=False,
            em=0.0,
            f1=0.0,
            correct=False,
            llm_calls=0,
            tokens=0,
            latency_ms=(time.perf_counter() - started) * 1000,
            llm_ms=0.0,
            store_ms=0.0,
            rounds=0,
            error=str(exc),
        )
    em, f1, correct = score(decision.answer, q.answers, q.answerable, decision.abstained)
    record_feedback(loop.store, decision.id, correct=correct)
    after = loop.llm.ledger.total()
    k_max = max(run.options.recall_k)
    first = _passages(decision.rounds[0].candidates, k_max)
    final = _passages(decision.rounds[-1].candidates, k_max)
    left_out = decision.retrieval.excluded
    return QuestionResult(
        **base,
        query_type=decision.retrieval.query_type or None,
        prediction=decision.answer,
        abstained=decision.abstained,
        em=em,
        f1=f1,
        correct=correct,
        recall_first={k: recall_at_k(first, q.gold, k) for k in run.options.recall_k},
        recall_final={k: recall_at_k(final, q.gold, k) for k in run.options.recall_k},
        profile_coverage=decision.retrieval.coverage,
        excluded=len(left_out),
        gold_excluded=gold_among(loop.store, left_out, q.gold),
        llm_calls=(after.calls + after.cache_hits) - (before.calls + before.cache_hits),
        tokens=(after.total_tokens + after.cached_tokens)
        - (before.total_tokens + before.cached_tokens),
        latency_ms=decision.latency_ms,
        llm_ms=decision.llm_ms,
        store_ms=decision.store_ms,
        decision_id=decision.id,
        rounds=len(decision.rounds),
        capped=after.capped - before.capped,
        verdicts=_verdicts(decision),
    )


def gold_among(store: GraphStore, chunk_ids: Sequence[str], gold: Sequence[GoldPassage]) -> int:
    """How many of the gold passages are among these chunks (what the planner left out)."""
    if not chunk_ids:
        return 0
    shown = candidates(store, [(c, 0.0, []) for c in chunk_ids], 0)
    return gold_hits(_passages(shown, len(shown)), gold, len(shown))


def _passages(candidates: Sequence[Candidate], k: int) -> list[tuple[str, str]]:
    return [(c.title, c.text) for c in candidates[:k]]


def _verdicts(decision: Decision) -> dict[str, str]:
    return {str(v["chunk"]): str(v["verdict"]) for v in final_verdicts(decision.rounds)}


def _consistency(
    run: Run,
    stores: dict[str, GraphStore],
    embedder: Embedder,
    order: list[EvalQuestion],
    llm: LLM | None,
) -> list[ConsistencyResult]:
    """ROZA §5.5: K runs per probe question at a temperature above 0, without and with
    memory (after the protocol, so the memory is warm); kept in the run dir. The probes
    write nothing back: each run sees the memory, and so the prompt, the first one saw."""
    if llm is None:
        from graphmind.factories import make_llm

        hot = run.settings.model_copy(
            update={"llm_temperature": run.options.temperature, "llm_cache": "off"}
        )
        llm = make_llm(hot, cache_dir=run.run_dir)
        assert llm is not None  # the same settings produced one before
    path = run.run_dir / CONSISTENCY_FILE
    done: dict[tuple[str, str], list[dict[str, str]]] = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                done[row["config"], row["question_id"]] = row["runs"]
    out: list[ConsistencyResult] = []
    pairs = [c for c in ("loop", "profiles", "vr", "rg", "rg-full") if c in stores]
    # One configuration's probes after another: a run cut short keeps whole comparisons
    # of the first ones (vr with rg) rather than a few probes of each.
    for config in pairs:
        for q in order[: run.options.consistency]:
            runs = done.get((config, q.id))
            if runs is None:
                probe = replace(_ask_options(run.options, config), record=False)
                loop = AskLoop(stores[config], embedder, llm, probe)
                runs = []
                for _ in range(run.options.consistency_runs):
                    try:
                        runs.append(_verdicts(loop.ask(q.question)))
                    except LLMError as exc:
                        run.say(f"consistency run failed: {exc}")
                row = {"config": config, "question_id": q.id, "runs": runs}
                with path.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(row) + "\n")
            out.append(consistency(q.id, config, runs))
            run.say(f"consistency {config:8} {q.id}: {len(runs)} runs")
    return out


def _share(value: float | None) -> str:
    """A share for the report ("n/a" without gold): gold passages an earlier question
    in the asking order already had as gold."""
    return "n/a" if value is None else f"{value:.3f}"


def _command(options: EvalOptions) -> str:
    parts = ["graphmind eval", options.dataset]
    if options.subset is not None:
        parts += ["--subset", options.subset]
    if options.limit is not None:
        parts += ["--limit", str(options.limit)]
    if options.questions is not None:
        parts += ["--questions", str(options.questions)]
    parts += ["--seed", str(options.seed), "--configs", ",".join(options.configs)]
    parts += ["--k", str(options.k), "--max-rounds", str(options.max_rounds)]
    parts += ["--extract", options.extract]
    if options.max_triplets != RetrieveOptions.max_triplets:
        parts += ["--max-triplets", str(options.max_triplets)]
    if options.consistency:
        parts += ["--consistency", str(options.consistency)]
    if options.store:
        parts += ["--store", options.store]
    return " ".join(parts)
