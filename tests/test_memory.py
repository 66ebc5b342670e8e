"""The cross-run memory with a scripted LLM: evidence profiles, feedback, query types, the
planner, pruning and the audit queries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from buildkit import HASH_SPEC
from graphmind.ask.loop import AskLoop
from graphmind.core.decision import Decision
from graphmind.core.errors import ConfigError
from graphmind.embed.hashing import HashingEmbedder
from graphmind.llm.base import Message
from graphmind.llm.client import LLM
from graphmind.llm.scripted import ScriptedProvider
from graphmind.memory.feedback import record_feedback
from graphmind.memory.planner import PlannerOptions, plan_retrieval
from graphmind.memory.profiles import ProfileOptions, evidence_profiles, within_budget
from graphmind.memory.prune import prune_evaluations
from graphmind.memory.querytypes import assign_query_type
from graphmind.memory.session import MemoryOptions
from graphmind.store.base import GraphStore
from graphmind.store.registry import default_root
from helpers.ask import QUESTION, asked_on_disk, chunk_of, is_check, loop, responder

AUDIT = sorted((default_root() / "audit").glob("*.cypher"))


class Recorder:
    """The scripted responder, keeping every answer prompt it is shown (the prompts
    that carry the passages and their profiles)."""

    def __init__(self) -> None:
        self.judge_prompts: list[str] = []

    def __call__(self, messages: list[Message]) -> str:
        if messages[0]["content"].startswith("You answer") and not is_check(messages):
            self.judge_prompts.append(messages[1]["content"])
        return responder(messages)


def asker(
    store: GraphStore, tmp_path: Path, memory: str, recorder: Recorder, **options: Any
) -> AskLoop:
    """The loop with the recording responder and no response cache (every prompt is seen)."""
    built = loop(store, tmp_path, recorder, memory=MemoryOptions(mode=memory, **options))  # type: ignore[arg-type]
    built.llm = LLM(ScriptedProvider(recorder), cache=None)
    return built


def rejected_every_time(store: GraphStore, decisions: list[Decision]) -> str:
    """A chunk every given decision rejected (the test's chunk X)."""
    rows = store.run_text(
        "MATCH (d:Decision)-[v:EVALUATED {verdict: 'rejected'}]->(c:Chunk) "
        "WHERE d.id IN $ids RETURN c.id AS id, count(d) AS n",
        {"ids": [d.id for d in decisions]},
    ).records()
    every = sorted(r["id"] for r in rows if r["n"] == len(decisions))
    assert every, "the fixture question should reject some chunk every time"
    return every[0]


def block_of(prompts: list[str], chunk_text: str) -> str:
    """The candidate block (passage line and its indented lines) showing ``chunk_text`` in
    the first of ``prompts`` that offers it."""
    for prompt in prompts:
        lines = prompt.splitlines()
        for i, line in enumerate(lines):
            if line.startswith("[") and chunk_text in line:
                block = [line]
                for nxt in lines[i + 1 :]:
                    if not nxt.startswith("    "):
                        break
                    block.append(nxt)
                return "\n".join(block)
    raise AssertionError(f"{chunk_text!r} is not a candidate in {prompts}")


def text_of(store: GraphStore, chunk: str) -> str:
    """A chunk's text as the prompt shows it (on one line)."""
    rows = store.run_text("MATCH (c:Chunk {id: $id}) RETURN c.text AS t", {"id": chunk})
    return " ".join(str(rows.records()[0]["t"]).split())


def three_correct(store: GraphStore, tmp_path: Path, recorder: Recorder) -> list[Decision]:
    decisions = []
    for _ in range(3):
        d = asker(store, tmp_path, "profiles", recorder).ask(QUESTION)
        record_feedback(store, d.id, correct=True)
        decisions.append(d)
    return decisions


def test_fourth_prompt_carries_the_profile(corpus_store: GraphStore, tmp_path: Path) -> None:
    recorder = Recorder()
    asker(corpus_store, tmp_path, "off", recorder).ask(QUESTION)  # evolves the graph once
    recorder.judge_prompts.clear()
    asker(corpus_store, tmp_path, "off", recorder).ask(QUESTION)  # stays pending
    off_prompt = recorder.judge_prompts[0]
    assert "[EVIDENCE PROFILE]" not in off_prompt
    recorder.judge_prompts.clear()
    decisions = three_correct(corpus_store, tmp_path, recorder)
    # cold start: with no correct decision yet, the profiles mode shows the plain prompt
    assert recorder.judge_prompts[0] == off_prompt
    x = rejected_every_time(corpus_store, decisions)
    recorder.judge_prompts.clear()
    fourth = asker(corpus_store, tmp_path, "profiles", recorder).ask(QUESTION)
    block = block_of(recorder.judge_prompts, text_of(corpus_store, x))
    assert "[EVIDENCE PROFILE] Evaluated 3 times in prior correct decisions." in block
    assert "rejected 3/3" in block and "used 0/3" in block
    assert 'Top reason (rejected, 3/3): "not cited for the answer"' in block
    assert "Reliability: 0.00." in block
    # a chunk the answer used carries the opposite profile
    used = chunk_of(corpus_store, "Aldo Vance")
    used_block = block_of(recorder.judge_prompts, text_of(corpus_store, used))
    assert "used 3/3" in used_block
    assert "Top reason (used, 3/3): \"cited for the answer 'Port Ellis'\"" in used_block
    # five decisions judged it, three of them correct and using it: R = 3/5
    assert "Reliability: 0.60." in used_block
    assert fourth.retrieval.profiled > 0 and fourth.retrieval.memory == "profiles"


def test_incorrect_decisions_never_feed_profiles(corpus_store: GraphStore, tmp_path: Path) -> None:
    recorder = Recorder()
    decisions = [asker(corpus_store, tmp_path, "off", recorder).ask(QUESTION) for _ in range(3)]
    record_feedback(corpus_store, decisions[0].id, correct=True)
    record_feedback(corpus_store, decisions[1].id, correct=False)
    record_feedback(corpus_store, decisions[2].id, gold="Dunmore")  # wrong: token F1 0
    x = rejected_every_time(corpus_store, decisions)
    profile = evidence_profiles(corpus_store, [x])[x]
    assert (profile.evaluated, profile.counts["rejected"], profile.incoming) == (1, 1, 3)
    # feedback flips an outcome, and the next profile reflects it
    flipped = record_feedback(corpus_store, decisions[1].id, gold="port ellis.")
    assert (flipped.outcome, flipped.previous, flipped.f1) == ("correct", "incorrect", 1.0)
    assert evidence_profiles(corpus_store, [x])[x].evaluated == 2
    record_feedback(corpus_store, decisions[0].id, correct=False)
    record_feedback(corpus_store, decisions[1].id, correct=False)
    assert evidence_profiles(corpus_store, [x]) == {}  # no correct decision left: no profile
    # idempotent: the same feedback twice leaves the same state
    again = record_feedback(corpus_store, decisions[1].id, correct=False)
    assert (again.outcome, again.previous) == ("incorrect", "incorrect")
    decided = corpus_store.run_text(
        "MATCH (:Agent)-[r:DECIDED]->(d:Decision) RETURN d.outcome AS d, r.outcome AS r"
    ).records()
    assert all(row["d"] == row["r"] for row in decided)


def test_full_memory_excludes_what_keeps_being_rejected(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    recorder = Recorder()
    decisions = three_correct(corpus_store, tmp_path, recorder)
    x = rejected_every_time(corpus_store, decisions)
    fourth = asker(corpus_store, tmp_path, "full", recorder).ask(QUESTION)
    assert x not in {c.id for r in fourth.rounds for c in r.candidates}
    assert fourth.answer == "Port Ellis"
    assert x in fourth.retrieval.excluded
    assert fourth.retrieval.query_type == decisions[0].retrieval.query_type
    via = corpus_store.run_text(
        "MATCH (d:Decision {id: $id})-[r:RETRIEVED_VIA]->(q:Query)-[:OF_TYPE]->(t:QueryType) "
        "RETURN r.excluded AS excluded, r.memory AS memory, r.candidates_pre AS pre, "
        "r.candidates_post AS post, r.config AS config, q.text AS text, t.count AS size",
        {"id": fourth.id},
    ).records()
    assert len(via) == 1
    assert x in via[0]["excluded"] and via[0]["memory"] == "full"
    assert via[0]["pre"] > via[0]["post"] and via[0]["text"] == QUESTION
    assert via[0]["size"] == 4 and via[0]["config"] == fourth.retrieval.config
    # the profiles mode reads the same graph but excludes nothing
    fifth = asker(corpus_store, tmp_path, "profiles", recorder).ask(QUESTION)
    assert x in {c.id for r in fifth.rounds for c in r.candidates}
    assert fifth.retrieval.excluded == []


def test_query_types_online_kmeans(corpus_store: GraphStore, tmp_path: Path) -> None:
    recorder = Recorder()
    first = asker(corpus_store, tmp_path, "off", recorder).ask(QUESTION)
    assert first.retrieval.query_type_new
    second = asker(corpus_store, tmp_path, "off", recorder).ask(QUESTION + " ")
    assert not second.retrieval.query_type_new
    assert second.retrieval.query_type == first.retrieval.query_type
    other = asker(corpus_store, tmp_path, "off", recorder).ask("Who founded the Zorblax Institute?")
    assert (
        other.retrieval.query_type_new and other.retrieval.query_type != first.retrieval.query_type
    )
    types = corpus_store.run_text(
        "MATCH (t:QueryType) RETURN t.id AS id, t.count AS n, t.centroid AS c ORDER BY n"
    ).records()
    assert [t["n"] for t in types] == [1, 2]
    # the centroid of the two-question type is their mean embedding
    vector = HashingEmbedder(HASH_SPEC).embed([QUESTION])[0]
    assert types[1]["c"] == pytest.approx(vector, abs=1e-6)
    near = assign_query_type(corpus_store, "x", vector)
    assert (near.id, near.new, near.size) == (first.retrieval.query_type, False, 2)
    far = assign_query_type(corpus_store, "x", [-v for v in vector])
    assert far.new


def test_planner_picks_the_best_supported_configuration(
    corpus_store: GraphStore, tmp_path: Path
) -> None:
    recorder = Recorder()
    outcomes = {"narrow": [True, True, True], "default": [True, False, False], "no-ppr": [True]}
    qt = ""
    for config, results in outcomes.items():
        for ok in results:
            d = asker(corpus_store, tmp_path, "off", recorder).ask(QUESTION)
            _set_config(corpus_store, d.id, config)
            record_feedback(corpus_store, d.id, correct=ok)
            qt = d.retrieval.query_type
    plan = plan_retrieval(corpus_store, qt, QUESTION, PlannerOptions(explore=0.0))
    assert plan.config.name == "narrow" and not plan.explored
    stats = {s.config: (s.support, s.correct) for s in plan.stats}
    assert stats == {"default": (3, 1), "narrow": (3, 3), "no-ppr": (1, 1), "chunks-only": (0, 0)}
    # no-ppr succeeded every time but has too little support to be trusted
    explore = plan_retrieval(corpus_store, qt, QUESTION, PlannerOptions(explore=1.0))
    assert explore.explored and explore.config.name == "chunks-only"
    # the full loop follows the plan: half the candidates under "narrow"
    d = asker(corpus_store, tmp_path, "full", recorder, planner=PlannerOptions(explore=0.0)).ask(
        QUESTION
    )
    assert d.retrieval.config == "narrow" and "k=2" in d.retrieval.filters
    assert all(len(r.candidates) <= 2 for r in d.rounds)


def _set_config(store: GraphStore, decision_id: str, config: str) -> None:
    store._execute(  # a test-only rewrite of history
        "MATCH (:Decision {id: $id})-[r:RETRIEVED_VIA]->() SET r.config = $config",
        {"id": decision_id, "config": config},
        write=True,
    )


def test_prune_keeps_the_most_recent(corpus_store: GraphStore, tmp_path: Path) -> None:
    recorder = Recorder()
    decisions = [asker(corpus_store, tmp_path, "off", recorder).ask(QUESTION) for _ in range(4)]
    x = rejected_every_time(corpus_store, decisions)
    dry = prune_evaluations(corpus_store, 2, dry_run=True)
    assert dry.dry_run and dry.items >= 1 and dry.deleted >= 2
    before = corpus_store.relationship_count()
    report = prune_evaluations(corpus_store, 2)
    assert report.deleted == dry.deleted and report.items == dry.items
    assert corpus_store.relationship_count() == before - report.deleted
    kept = corpus_store.run_text(
        "MATCH (c:Chunk {id: $id})<-[:EVALUATED]-(d:Decision) RETURN d.id AS id",
        {"id": x},
    ).records()
    assert sorted(k["id"] for k in kept) == sorted(d.id for d in decisions[2:])
    assert prune_evaluations(corpus_store, 2).deleted == 0
    with pytest.raises(ConfigError):
        prune_evaluations(corpus_store, 0)


def test_feedback_errors(corpus_store: GraphStore) -> None:
    with pytest.raises(ConfigError, match="no decision"):
        record_feedback(corpus_store, "nope", correct=True)
    with pytest.raises(ConfigError, match="exactly one"):
        record_feedback(corpus_store, "nope")
    with pytest.raises(ConfigError, match="empty"):
        record_feedback(corpus_store, "nope", gold="  ")


def audit_params(store: GraphStore, decision: Decision, x: str) -> dict[str, dict[str, Any]]:
    return {
        "decision_chain": {"id": decision.id},
        "evidence_history": {"chunk": x},
        "decisions_citing_document": {"document": "Silent Harbor"},
    }


def test_every_audit_query_runs(corpus_store: GraphStore, tmp_path: Path) -> None:
    assert {p.stem for p in AUDIT} >= {
        "decision_chain",
        "evidence_history",
        "least_reliable",
        "rejection_themes",
        "retrieval_funnel",
        "decisions_citing_document",
    }
    recorder = Recorder()
    decisions = three_correct(corpus_store, tmp_path, recorder)
    wrong = asker(corpus_store, tmp_path, "full", recorder).ask(QUESTION)
    record_feedback(corpus_store, wrong.id, correct=False)
    x = rejected_every_time(corpus_store, decisions)
    params = audit_params(corpus_store, decisions[0], x)
    results: dict[str, list[dict[str, Any]]] = {}
    for path in AUDIT:
        text = path.read_text(encoding="utf-8")
        assert text.startswith("//"), f"{path.name} needs a comment header"
        results[path.stem] = corpus_store.run_text(text, params.get(path.stem, {})).records()
    chain = results["decision_chain"]
    assert {r["round"] for r in chain} == {1, 2} and chain[0]["question"] == QUESTION
    assert any(r["cited"] and r["document"] == "Silent Harbor" for r in chain)
    history = results["evidence_history"]
    assert len(history) == 3 and {h["verdict"] for h in history} == {"rejected"}
    assert [h["at"] for h in history] == sorted((h["at"] for h in history), reverse=True)
    least = {r["chunk"]: r for r in results["least_reliable"]}
    assert least[x]["reliability"] == 0.0 and least[x]["rejected_correct"] == 3
    themes = {r["chunk"]: r for r in results["rejection_themes"]}
    assert themes[x]["theme"] == "not cited for the answer" and themes[x]["theme_pct"] == 100
    funnel = results["retrieval_funnel"]
    assert sum(r["decisions"] for r in funnel) == 4
    assert sum(r["correct"] for r in funnel) == 3 and sum(r["with_feedback"] for r in funnel) == 4
    citing = results["decisions_citing_document"]
    assert {c["decision"] for c in citing} == {d.id for d in [*decisions, wrong]}


def test_cli_feedback_prune_and_audit(tmp_path: Path, store_env: dict[str, str]) -> None:
    decision, run = asked_on_disk(tmp_path, store_env)
    marked = run("feedback", decision.id, "--gold", "Port Ellis")
    assert marked.returncode == 0, marked.stderr
    assert "correct" in marked.stdout and "token F1 1.00" in marked.stdout
    as_json = json.loads(run("feedback", decision.id, "--incorrect", "--json").stdout)
    assert (as_json["outcome"], as_json["previous"]) == ("incorrect", "correct")
    both = run("feedback", decision.id, "--correct", "--gold", "x")
    assert both.returncode == 2 and "one of --correct" in both.stderr
    unknown = run("feedback", "no-such-decision", "--correct")
    assert unknown.returncode != 0 and "no decision" in unknown.stderr
    assert "Traceback" not in unknown.stderr
    chain = run("cypher", "audit/decision_chain", "-p", f"id={decision.id}", "--json")
    assert chain.returncode == 0, chain.stderr
    assert {r["round"] for r in json.loads(chain.stdout)} == {1, 2}
    missing = run("cypher", "audit/no_such_query")
    assert missing.returncode == 2 and "audit/decision_chain" in missing.stderr
    pruned = run("prune", "--keep", "1", "--dry-run")
    assert pruned.returncode == 0 and "would delete 0" in pruned.stdout


def test_profile_sampling_and_budget(corpus_store: GraphStore, tmp_path: Path) -> None:
    recorder = Recorder()
    decisions = three_correct(corpus_store, tmp_path, recorder)
    x = rejected_every_time(corpus_store, decisions)
    used = chunk_of(corpus_store, "Aldo Vance")
    # more than tmax evaluations: only the `recent` newest make the distribution
    sampled = evidence_profiles(corpus_store, [x, used], ProfileOptions(tmax=2, recent=1))
    assert (sampled[x].evaluated, sampled[x].sampled) == (3, 1)
    assert "Evaluated 3 times in prior correct decisions. The 1 most recent:" in sampled[x].text
    assert "rejected 1/1" in sampled[x].text
    full = evidence_profiles(corpus_store, [x, used, "no-such-chunk"])
    assert set(full) == {x, used}  # no history, no profile
    # the budget keeps the most evaluated first and stops where the next does not fit
    top = min(full, key=lambda i: (-full[i].evaluated, i))  # ties: by id
    one = len(full[top].text) // 4 + 1
    assert set(within_budget(full, one)) == {top}
    assert within_budget(full, 0) == {}
    assert set(within_budget(full, 2000)) == {x, used}


def test_decision_as_json_carries_the_memory(corpus_store: GraphStore, tmp_path: Path) -> None:
    from graphmind.memory.render import decision_as_dict

    decision = asker(corpus_store, tmp_path, "full", Recorder()).ask(QUESTION)
    data = json.loads(json.dumps(decision_as_dict(decision)))
    assert data["retrieval"]["memory"] == "full" and "query_vector" not in data["retrieval"]
    assert data["retrieval"]["coverage"] == 0.0 and data["retrieval"]["query_type_new"]
