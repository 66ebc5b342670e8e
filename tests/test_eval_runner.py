"""``graphmind eval`` end to end with a scripted LLM on the synthetic MuSiQue slice."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from buildkit import HASH_SPEC, provider_of, scripted_llm
from conftest import neo4j_settings, open_neo4j
from graphmind.ask.options import PolicyName
from graphmind.config import Settings
from graphmind.core.errors import BadInputError, ConfigError
from graphmind.embed.hashing import HashingEmbedder
from graphmind.eval.carry import restore_record, save_record
from graphmind.eval.datasets import load_dataset
from graphmind.eval.options import CONFIGS, DEFAULT_CONFIGS, EvalOptions
from graphmind.eval.records import QuestionResult, load_results
from graphmind.eval.runner import gold_among, run_eval
from graphmind.extract.fast import DEFAULT_MODEL as FAST_MODEL
from graphmind.factories import CACHE_FILE, open_store
from graphmind.llm.base import Message
from graphmind.llm.cache import ResponseCache
from graphmind.llm.client import LLM
from graphmind.llm.scripted import ScriptedProvider
from helpers.eval import FIXTURES, responder


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(store=f"falkordb-lite://{tmp_path / 'unused.db'}", embedder="hash:384")


def test_eval_runs_resumes_and_reports(tmp_path: Path, settings: Settings) -> None:
    run_dir = tmp_path / "run"
    llm = scripted_llm(run_dir / "llm.sqlite", responder)
    options = EvalOptions("musique", data_root=FIXTURES, limit=None, k=4, consistency=2)
    embedder = HashingEmbedder(HASH_SPEC)
    report = run_eval(run_dir, options, settings, llm=llm, embedder=embedder)
    results = load_results(run_dir)
    assert len(results) == 3 * len(DEFAULT_CONFIGS)
    assert {r.config for r in results} == set(DEFAULT_CONFIGS)
    by = {(r.config, r.question_id): r for r in results}
    # same questions, same order, in every configuration
    for config in DEFAULT_CONFIGS:
        order = sorted((r for r in results if r.config == config), key=lambda r: r.position)
        assert [r.question_id for r in order] == [
            r.question_id for r in sorted(results, key=lambda r: r.position) if r.config == "naive"
        ]
    # scores follow the predictions; recall counts the gold passages retrieved
    for r in results:
        assert r.correct == (r.f1 >= 0.8) and r.error is None
        assert set(r.recall_first) == {2, 5, 10}
    messi = by["loop", "2hop__101_202"]
    assert messi.prediction == "Rosario" and messi.correct and messi.em == 1.0
    assert messi.recall_final[10] is not None and messi.recall_final[10] > 0
    assert messi.llm_calls >= 1 and messi.tokens > 0 and messi.rounds >= 1
    # each configuration has its own store, holding its own decisions with gold feedback
    for config in DEFAULT_CONFIGS:
        store_settings = settings.model_copy(
            update={"store": f"falkordb-lite://{run_dir / 'stores' / f'{config}.db'}"}
        )
        with open_store(store_settings) as store:
            rows = store.run_text(
                "MATCH (d:Decision) RETURN d.outcome AS outcome, d.memory AS memory"
            ).records()
        # the consistency probes wrote nothing back: each run saw the memory the first saw
        assert len(rows) == 3
        assert sum(r["outcome"] in ("correct", "incorrect") for r in rows) == 3
        assert {r["memory"] for r in rows} == {CONFIGS[config][1]}
    # the planner's exclusions are checked for gold: the chunks of the question's gold
    question = load_dataset("musique", FIXTURES).questions[0]
    with open_store(store_settings) as store:
        chunks = store.run_text(
            "MATCH (c:Chunk)-[:PART_OF]->(d:Document) RETURN c.id AS id, d.title AS title"
        ).records()
        gold_titles = {g.title for g in question.gold}
        gold_chunks = [r["id"] for r in chunks if r["title"] in gold_titles]
        other = [r["id"] for r in chunks if r["title"] not in gold_titles]
        assert gold_among(store, other[:3], question.gold) == 0
        assert gold_among(store, [*other[:3], *gold_chunks], question.gold) == len(gold_titles)
        assert gold_among(store, [], question.gold) == 0
    # the report, its JSON and its plots
    text = report.read_text(encoding="utf-8")
    assert "McNemar" in text and "naive" in text and "full" in text
    data = json.loads((run_dir / "results.json").read_text())
    assert len(data["records"]) == 12 and data["consistency"][0]["runs"] == 3
    # the probes go one configuration after another, so a cut-short run keeps whole pairs
    probed = [c["config"] for c in data["consistency"]]
    assert probed == [c for c in ("loop", "profiles") if c in DEFAULT_CONFIGS for _ in range(2)]
    # 9 gold passages over the 3 questions; Lionel Messi, Rosario and Parana River return
    assert data["meta"]["gold-passage reuse"] == "0.333"
    assert "| gold-passage reuse | 0.333 |" in text
    for png in ("dose_response.png", "learning_curve.png", "cost_latency.png"):
        assert (run_dir / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # resuming a finished run asks nothing again
    calls = provider_of(llm).calls
    run_eval(run_dir, options, settings, llm=llm, embedder=embedder)
    assert provider_of(llm).calls == calls and len(load_results(run_dir)) == 12
    # a run directory is bound to its evaluation
    with pytest.raises(ConfigError, match="another evaluation"):
        run_eval(run_dir, EvalOptions("musique", data_root=FIXTURES, limit=2), settings, llm=llm)


def test_unknown_configuration(tmp_path: Path, settings: Settings) -> None:
    with pytest.raises(ConfigError, match="unknown configuration"):
        run_eval(tmp_path, EvalOptions("musique", configs=("magic",)), settings)


def test_rg_is_vanilla_rag_until_profiles_form(tmp_path: Path, settings: Settings) -> None:
    """ROZA's configurations: at 0% profile coverage, rg sends exactly vr's prompts; once
    gold feedback has made profiles, rg's prompts carry them and vr's never do."""
    run_dir = tmp_path / "run"
    prompts: dict[str, list[str]] = {}

    def recording(messages: list[Message]) -> str:
        prompts.setdefault(current["config"], []).append(messages[1]["content"])
        return responder(messages)

    current = {"config": ""}
    options = EvalOptions("musique", data_root=FIXTURES, limit=None, k=4, configs=("vr", "rg"))
    embedder = HashingEmbedder(HASH_SPEC)
    # one configuration at a time, each with its own store; "bare" is rg quoting no reasons
    for name, config, reasons in (("vr", "vr", 1), ("rg", "rg", 1), ("bare", "rg", 0)):
        current["config"] = name
        llm = LLM(ScriptedProvider(recording), cache=None)
        run_eval(
            run_dir / name,
            replace(options, configs=(config,), profile_reasons=reasons),
            settings,
            llm=llm,
            embedder=embedder,
        )
    vr, rg, bare = prompts["vr"], prompts["rg"], prompts["bare"]
    assert len(vr) == len(rg) == len(bare) == 3
    results = {r.question_id: r for r in load_results(run_dir / "rg")}
    first = min(results.values(), key=lambda r: r.position)
    assert first.profile_coverage == 0.0
    ordered = sorted(results.values(), key=lambda r: r.position)
    for a, b, c, r in zip(vr, rg, bare, ordered, strict=True):
        if r.profile_coverage == 0.0:
            assert a == b == c  # byte-identical without profiles
        else:
            assert "[EVIDENCE PROFILE]" in b and "[EVIDENCE PROFILE]" not in a
            # the same profiles without the quoted reasons
            assert "Top reason" in b and "Top reason" not in c
            assert c == re.sub(r' Top reason \((used|rejected), \d+/\d+\): "r"\.', "", b)
    assert any(r.profile_coverage > 0 for r in ordered)
    assert all(r.verdicts for r in results.values())  # every passage judged
    with pytest.raises(BadInputError, match="profile_reasons differs"):
        run_eval(run_dir / "bare", replace(options, configs=("rg",)), settings, embedder=embedder)
    assert "profile_reasons" not in json.loads((run_dir / "rg" / "run.json").read_text())


@pytest.mark.skipif(
    importlib.util.find_spec("spacy") is None or importlib.util.find_spec(FAST_MODEL) is None,
    reason="--extract fast needs spaCy's pipeline (scripts/setup.sh installs it)",
)
def test_max_triplets_zero_shows_the_passages_without_their_facts(
    tmp_path: Path, settings: Settings
) -> None:
    """``--max-triplets 0`` on a graph-built store: the prompts carry the same passages
    and no "facts:" line; the run directory is bound to it."""
    prompts: dict[int, list[str]] = {}
    options = EvalOptions("musique", data_root=FIXTURES, limit=None, k=4, configs=("naive",))
    options.extract = "fast"
    for facts in (6, 0):

        def recording(messages: list[Message], facts: int = facts) -> str:
            prompts.setdefault(facts, []).append(messages[1]["content"])
            return responder(messages)

        llm = LLM(ScriptedProvider(recording), cache=None)
        run_dir = tmp_path / str(facts)
        run_eval(run_dir, replace(options, max_triplets=facts), settings, llm=llm)
    shown, bare = prompts[6], prompts[0]
    assert len(shown) == len(bare) == 3
    assert any("\n    facts: " in p for p in shown) and not any("facts: " in p for p in bare)
    assert [re.sub(r"\n    facts: [^\n]*", "", p) for p in shown] == bare
    assert json.loads((tmp_path / "0" / "run.json").read_text())["max_triplets"] == 0
    assert "max_triplets" not in json.loads((tmp_path / "6" / "run.json").read_text())
    # the report's command repeats the run: its build and its facts
    command = json.loads((tmp_path / "0" / "results.json").read_text())["meta"]["command"]
    assert command.endswith("--extract fast --max-triplets 0")
    with pytest.raises(BadInputError, match="max_triplets differs: 0 there, the default asked"):
        run_eval(tmp_path / "0", options, settings)


@pytest.fixture
def shared_store(backend: str, tmp_path: Path) -> Callable[[], str]:
    """A function giving an empty store for a run on one store: a new FalkorDB Lite file,
    or the Neo4j under test wiped."""
    files = iter(range(100))

    def fresh() -> str:
        if backend == "falkordb":
            return f"falkordb-lite://{tmp_path / f'shared-{next(files)}.db'}"
        with open_neo4j() as store:
            store.wipe()
        return neo4j_settings()["store"]

    return fresh


def test_eval_on_one_store_keeps_the_configurations_apart(
    tmp_path: Path, settings: Settings, backend: str, shared_store: Callable[[], str]
) -> None:
    """Configurations in turn on one store give what each gives alone on an empty one."""
    if backend == "neo4j":
        settings = Settings(embedder=settings.embedder, **neo4j_settings())  # validated
    embedder = HashingEmbedder(HASH_SPEC)

    run_dir = tmp_path / "run"  # one path for all: chunk ids hash the corpus file's path

    said: list[str] = []

    def evaluate(store: str, configs: tuple[str, ...]) -> list[QuestionResult]:
        shutil.rmtree(run_dir, ignore_errors=True)
        llm = scripted_llm(tmp_path / "llm.sqlite", responder)
        options = EvalOptions(
            "musique", data_root=FIXTURES, limit=None, k=4, configs=configs, store=store
        )
        run_eval(run_dir, options, settings, said.append, llm=llm, embedder=embedder)
        return load_results(run_dir)

    alone = [r for c in DEFAULT_CONFIGS for r in evaluate(shared_store(), (c,))]
    store = shared_store()
    said.clear()
    together = evaluate(store, DEFAULT_CONFIGS)
    # each configuration after the first starts from the base build put back, memory and
    # its statistics deleted: the corpus is built once
    assert sum("building" in line for line in said) == 1, said

    def outcome(r: QuestionResult) -> tuple[object, ...]:
        verdicts = sorted(r.verdicts.values())  # chunk ids hash the run's corpus path
        return (r.prediction, r.correct, r.rounds, verdicts, r.recall_first, r.excluded)

    assert len(together) == 3 * len(DEFAULT_CONFIGS)
    assert {(r.config, r.question_id): outcome(r) for r in together} == {
        (r.config, r.question_id): outcome(r) for r in alone
    }
    with open_store(settings.model_copy(update={"store": store})) as graph:
        rows = graph.run_text("MATCH (d:Decision) RETURN d.memory AS memory").records()
        assert [r["memory"] for r in rows] == ["full"] * 3  # the last configuration's memory
        assert (graph.meta() or {})["eval_config"] == "full"
    # resuming asks nothing; another run on the same store is refused
    llm = scripted_llm(tmp_path / "resumed.sqlite", responder)
    options = EvalOptions("musique", data_root=FIXTURES, limit=None, k=4, store=store)
    run_eval(run_dir, options, settings, llm=llm, embedder=embedder)
    assert provider_of(llm).calls == 0 and len(load_results(run_dir)) == 12
    with pytest.raises(ConfigError, match="holds the evaluation run"):
        run_eval(tmp_path / "other", options, settings, llm=llm, embedder=embedder)


def test_an_llm_extracted_corpus_gets_its_communities(
    tmp_path: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graphmind import factories

    extraction = scripted_llm(tmp_path / "extract.sqlite")
    monkeypatch.setattr(factories, "make_llm", lambda *_a, **_k: extraction)
    run_dir = tmp_path / "run"
    options = EvalOptions("musique", data_root=FIXTURES, limit=1, configs=("naive",))
    options.extract = "llm"
    llm = scripted_llm(run_dir / "llm.sqlite", responder)
    run_eval(run_dir, options, settings, llm=llm, embedder=HashingEmbedder(HASH_SPEC))
    base = settings.model_copy(update={"store": f"falkordb-lite://{run_dir / 'stores/base.db'}"})
    with open_store(base) as store:
        counts = store.counts()
    assert counts["Entity"] > 0 and counts["Community"] > 0
    # one call a passage; communities named by their members, as a fast build's are
    assert extraction.ledger.get("extract").calls > 0
    assert extraction.ledger.get("summarize").calls == 0


def test_a_subset_keeps_the_questions_whose_id_starts_with_it(
    tmp_path: Path, settings: Settings
) -> None:
    """``--subset``: a LoCoMo conversation or a MuSiQue hop count, without a question file
    (whose path would bind the run to one machine)."""
    assert [q.id for q in load_dataset("musique", FIXTURES, subset="3hop1").questions] == [
        "3hop1__303_404_505"
    ]
    assert load_dataset("musique", FIXTURES, subset="2hop").questions[0].id == "2hop__101_202"
    with pytest.raises(ConfigError, match="no musique question id starts with '3hop'"):
        load_dataset("musique", FIXTURES, subset="3hop")  # up to a letter or digit: not 3hop1
    options = EvalOptions("musique", data_root=FIXTURES, limit=None, k=4, configs=("vr",))
    llm = scripted_llm(tmp_path / "llm.sqlite", responder)
    run_eval(tmp_path / "run", replace(options, subset="2hop"), settings, llm=llm)
    assert [r.question_id for r in load_results(tmp_path / "run")] == ["2hop__101_202"]
    assert json.loads((tmp_path / "run" / "run.json").read_text())["subset"] == "2hop"
    assert "subset" not in options.identity()  # runs without one resume as before


def test_a_run_carried_by_its_record_replays_its_memory_and_goes_on(
    tmp_path: Path, settings: Settings
) -> None:
    """A record (results and responses, no stores) restored on another machine: the
    resumed run replays the recorded answers into fresh stores from the responses, so
    the question left is asked with the memory the first run had."""
    first = tmp_path / "first"
    options = EvalOptions("musique", data_root=FIXTURES, limit=None, k=4, configs=("vr", "rg"))
    embedder = HashingEmbedder(HASH_SPEC)
    llm = scripted_llm(first / CACHE_FILE, responder)
    run_eval(first, options, settings, llm=llm, embedder=embedder)
    whole = {(r.config, r.question_id): r for r in load_results(first)}
    last = max(r.position for r in whole.values())
    assert any(r.profile_coverage > 0 for r in whole.values() if r.position == last)
    # the record of a run interrupted before its last question
    lines = (first / "results.jsonl").read_text().splitlines()
    (first / "results.jsonl").write_text(
        "".join(f"{line}\n" for line in lines if json.loads(line)["position"] != last)
    )
    record = tmp_path / "record"
    with ResponseCache(first / CACHE_FILE) as cache:
        responses = len(cache)
    assert save_record(first, record) == responses > 0
    assert not (record / "stores").exists()
    recorded = (record / "results.jsonl").read_text()
    question = load_dataset("musique", FIXTURES).questions[0]
    assert question.id in recorded and question.question not in recorded  # no benchmark text
    damaged = tmp_path / "damaged"
    shutil.copytree(record, damaged)
    whole_file = (damaged / "responses.jsonl.gz").read_bytes()
    (damaged / "responses.jsonl.gz").write_bytes(whole_file[: len(whole_file) // 2])
    with pytest.raises(ConfigError, match="is damaged"):
        restore_record(damaged, tmp_path / "nothing", FIXTURES)
    assert not (tmp_path / "nothing" / "results.jsonl").exists()
    with ResponseCache(tmp_path / "nothing" / CACHE_FILE) as cache:
        assert len(cache) == 0  # all or none
    second = tmp_path / "second"
    assert restore_record(record, second, FIXTURES) == responses
    with pytest.raises(ConfigError, match="already holds results"):
        restore_record(record, second, FIXTURES)
    said: list[str] = []
    again = scripted_llm(second / CACHE_FILE, responder)
    run_eval(second, options, settings, said.append, llm=again, embedder=embedder)
    assert provider_of(again).calls == 0  # every answer came from the recorded responses
    assert any("replayed 2 answers" in line for line in said)
    resumed = {(r.config, r.question_id): r for r in load_results(second)}
    assert resumed.keys() == whole.keys()
    for key, result in resumed.items():
        assert result.prediction == whole[key].prediction
        assert result.profile_coverage == whole[key].profile_coverage  # the memory was there
    for config in ("vr", "rg"):
        with open_store(
            settings.model_copy(
                update={"store": f"falkordb-lite://{second / 'stores' / f'{config}.db'}"}
            )
        ) as store:
            outcomes = store.run_text("MATCH (d:Decision) RETURN d.outcome AS o").records()
        assert sorted(r["o"] for r in outcomes) == sorted(
            "correct" if r.correct else "incorrect" for (c, _), r in whole.items() if c == config
        )


def test_retrieval_only_measures_every_list_without_an_llm(
    tmp_path: Path, settings: Settings
) -> None:
    from graphmind.eval.retrieval import RETRIEVAL_FILE, ROUND1, format_table, run_retrieval

    run_dir = tmp_path / "run"
    options = EvalOptions("musique", data_root=FIXTURES, limit=None, k=10, extract="none")
    embedder = HashingEmbedder(HASH_SPEC)
    result = run_retrieval(run_dir, options, settings, embedder=embedder)
    lists = result["lists"]
    assert {"vector:chunk", "text:chunk", "fused:all", ROUND1} <= set(lists)
    assert "graph:ppr" not in lists  # a chunk-only corpus: no graph to walk
    # round 1 shows naive's top k (10) when there is no graph
    assert _recalls(lists)[ROUND1] == _recalls(lists)["vector:chunk"]
    for values in lists.values():
        assert all(0.0 <= values[f"recall@{k}"] <= 1.0 for k in (2, 5, 10))
    assert lists["vector:chunk"]["recall@10"] > 0  # the slice's gold is findable
    assert result["questions"] == 3 and set(result["by_category"]) <= {"2hop", "3hop", "4hop"}
    assert json.loads((run_dir / RETRIEVAL_FILE).read_text(encoding="utf-8")) == result
    assert "vector:chunk" in format_table(result)
    # the run directory keeps its build: a second run measures the same store again
    built = (run_dir / "stores" / "base.db").stat().st_mtime_ns
    again = run_retrieval(run_dir, options, settings, embedder=embedder)["lists"]
    assert _recalls(again) == _recalls(lists)
    assert (run_dir / "stores" / "base.db").stat().st_mtime_ns >= built
    with pytest.raises(BadInputError, match="another evaluation"):
        run_retrieval(run_dir, replace(options, k=4), settings, embedder=embedder)


def _recalls(lists: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """The recall cells of each list (the search times differ from run to run)."""
    return {
        name: {k: v for k, v in cells.items() if k.startswith("recall")}
        for name, cells in lists.items()
    }


def test_a_run_asks_with_the_policy_it_is_bound_to(tmp_path: Path, settings: Settings) -> None:
    """``--policy reflect`` reaches the loop (its reflect turn is sent after an answer) and
    binds the run directory; a rules run sends no reflect turn and binds nothing new."""
    turns: dict[str, list[str]] = {}
    options = EvalOptions("musique", data_root=FIXTURES, limit=2, k=4, configs=("loop",))
    embedder = HashingEmbedder(HASH_SPEC)
    policies: tuple[PolicyName, ...] = ("rules", "reflect")
    for policy in policies:

        def recording(messages: list[Message], policy: str = policy) -> str:
            last = messages[-1]["content"]
            turns.setdefault(policy, []).append(last)
            if last.startswith("Reflect on your answer"):
                return json.dumps({"complete": True, "next_question": "", "missing": ""})
            return responder(messages)

        llm = LLM(ScriptedProvider(recording), cache=None)
        run_eval(
            tmp_path / policy,
            replace(options, policy=policy),
            settings,
            llm=llm,
            embedder=embedder,
        )
    reflected = [t for t in turns["reflect"] if t.startswith("Reflect on your answer")]
    assert reflected and not any(t.startswith("Reflect") for t in turns["rules"])
    bound = json.loads((tmp_path / "reflect" / "run.json").read_text())
    assert bound["policy"] == "reflect"
    assert "policy" not in json.loads((tmp_path / "rules" / "run.json").read_text())
    with pytest.raises(ConfigError, match="policy differs"):
        run_eval(tmp_path / "reflect", options, settings, llm=llm, embedder=embedder)


def test_a_record_names_its_question_file_under_the_data_folder_as_data(
    tmp_path: Path,
) -> None:
    """A question file under the benchmark data is recorded as ``DATA/...`` and read
    under this machine's data folder on restore, so the resumed command names it here."""
    from graphmind.eval.carry import _local, _portable

    file = FIXTURES / "musique" / "dev_subset" / "musique_dev_292.json"
    identity = {"dataset": "musique", "questions": str(file), "limit": 2}
    recorded = _portable(identity, FIXTURES)
    assert recorded["questions"] == "DATA/musique/dev_subset/musique_dev_292.json"
    assert _local(recorded, FIXTURES) == identity
    elsewhere = {"dataset": "musique", "questions": str(tmp_path / "mine.json")}
    assert _portable(elsewhere, FIXTURES) == elsewhere == _local(elsewhere, FIXTURES)
