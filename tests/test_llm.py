"""The LLM facade with scripted providers: cache, ledger, repair retries, batches."""

from __future__ import annotations

import json
import random
import re
import threading
import time
from pathlib import Path

import pytest
from pydantic import BaseModel

from graphmind.core.errors import LLMError, LLMOutputError
from graphmind.llm import (
    LLM,
    Completion,
    Ledger,
    LLMRequestError,
    Message,
    RecordedProvider,
    ResponseCache,
    ScriptedProvider,
)
from graphmind.llm.scripted import UnknownRequestError


class Entity(BaseModel):
    name: str
    type: str


class Entities(BaseModel):
    entities: list[Entity]


GOOD = '{"entities": [{"name": "Marie Curie", "type": "person"}]}'
WRONG_TYPE = '{"entities": [{"name": ["Marie"], "type": "person"}]}'


def chat(text: str, system: str = "Extract the named entities as JSON.") -> list[Message]:
    return [{"role": "system", "content": system}, {"role": "user", "content": text}]


MESSAGES = chat("Marie Curie was born in Warsaw.")


def refuse(messages: list[Message]) -> str:
    raise AssertionError("the provider must not be called")


def test_second_identical_call_is_a_cache_hit_that_persists(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    provider = ScriptedProvider(lambda m: GOOD)
    with LLM(provider, cache=ResponseCache(path)) as llm:
        first = llm.structured("extract", MESSAGES, Entities)
        second = llm.structured("extract", MESSAGES, Entities)
        assert first == second and first.entities[0].name == "Marie Curie"
        assert provider.calls == 1
        usage = llm.ledger.get("extract")
        assert (usage.calls, usage.cache_hits) == (1, 1)
        assert usage.cached_tokens == usage.total_tokens > 0  # what the hit cost first time
        llm.structured("extract", chat("Pierre Curie was born in Paris."), Entities)
        assert provider.calls == 2

    again = ScriptedProvider(refuse)
    with LLM(again, cache=ResponseCache(path)) as llm:
        assert llm.structured("extract", MESSAGES, Entities) == first
        assert again.calls == 0
        assert llm.ledger.get("extract").cache_hits == 1

    other_model = ScriptedProvider(lambda m: GOOD, model_id="another-model")
    with LLM(other_model, cache=ResponseCache(path)) as llm:
        llm.structured("extract", MESSAGES, Entities)
    shorter = ScriptedProvider(lambda m: GOOD)
    with LLM(shorter, cache=ResponseCache(path), max_tokens=64) as llm:
        llm.structured("extract", MESSAGES, Entities)
    assert other_model.calls == 1 and shorter.calls == 1


def test_only_valid_outputs_are_cached(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    with LLM(ScriptedProvider(lambda m: "no idea"), cache=ResponseCache(path)) as llm:
        with pytest.raises(LLMOutputError):
            llm.structured("extract", MESSAGES, Entities)
        assert llm.cache is not None and len(llm.cache) == 0
    repaired = ScriptedProvider.sequence([WRONG_TYPE, GOOD])
    with LLM(repaired, cache=ResponseCache(path)) as llm:
        llm.structured("extract", MESSAGES, Entities)
        assert llm.cache is not None and len(llm.cache) == 1
    with LLM(ScriptedProvider(refuse), cache=ResponseCache(path)) as llm:
        assert llm.structured("extract", MESSAGES, Entities).entities[0].name == "Marie Curie"


def test_cache_is_safe_across_threads(tmp_path: Path) -> None:
    provider = ScriptedProvider(lambda m: GOOD)
    llm = LLM(provider, cache=ResponseCache(tmp_path / "cache.sqlite"))
    requests = [chat(f"text {i % 10}") for i in range(200)]
    errors: list[BaseException] = []

    def work(chunk: list[list[Message]]) -> None:
        try:
            for messages in chunk:
                llm.structured("extract", messages, Entities)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(requests[i::8],)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    usage = llm.ledger.get("extract")
    assert usage.calls + usage.cache_hits == 200
    assert llm.cache is not None and len(llm.cache) == 10
    llm.close()


def test_ledger_counts_calls_tokens_retries_and_failures_per_task() -> None:
    def answer(messages: list[Message]) -> Completion:
        if "bad" in messages[1]["content"]:
            return Completion("nothing useful", 50, 5, "m")
        return Completion(GOOD, 100, 20, "m")

    ledger = Ledger()
    llm = LLM(ScriptedProvider(answer), cache=None, ledger=ledger, max_retries=1)
    llm.structured("extract", chat("one"), Entities)
    llm.structured("extract", chat("two"), Entities)
    llm.structured("summarise", chat("three"), Entities)
    with pytest.raises(LLMOutputError):
        llm.structured("summarise", chat("bad"), Entities)

    assert llm.ledger is ledger
    assert [row.task for row in ledger.rows()] == ["extract", "summarise"]
    extract = ledger.get("extract")
    assert (extract.calls, extract.prompt_tokens, extract.completion_tokens) == (2, 200, 40)
    assert (extract.retries, extract.failures, extract.cache_hits) == (0, 0, 0)
    summarise = ledger.get("summarise")
    # one good call, then a bad one and its repair turn
    assert summarise.calls == 3 and summarise.retries == 1 and summarise.failures == 1
    assert summarise.prompt_tokens == 100 + 50 + 50
    total = ledger.total()
    assert total.calls == 5 and total.total_tokens == 240 + 120 + 2 * 55
    data = ledger.as_dict()
    assert list(data["tasks"]) == ["extract", "summarise"]
    assert data["total"]["calls"] == 5 and data["tasks"]["extract"]["total_tokens"] == 240
    assert total.seconds >= 0 and json.dumps(data)


def test_wrong_types_are_repaired_by_one_retry_quoting_the_error() -> None:
    provider = ScriptedProvider.sequence([WRONG_TYPE, GOOD])
    llm = LLM(provider, cache=None, max_retries=2)
    result = llm.structured("extract", MESSAGES, Entities)
    assert result.entities[0].name == "Marie Curie"
    assert provider.calls == 2
    retry = provider.requests[1]
    assert retry[: len(MESSAGES)] == MESSAGES
    assert retry[-2] == {"role": "assistant", "content": WRONG_TYPE}
    assert retry[-1]["role"] == "user"
    assert "entities.0.name: Input should be a valid string" in retry[-1]["content"]
    assert provider.schemas[0] == Entities.model_json_schema()
    assert llm.ledger.get("extract").retries == 1


@pytest.mark.parametrize("max_retries", [0, 2])
@pytest.mark.parametrize(
    "answer",
    ["I cannot help with that.", "", "{", "[1, 2]", '{"entities": "none"}', "<think>hmm", "null"],
)
def test_a_model_that_never_answers_well_fails_after_max_retries(
    max_retries: int, answer: str
) -> None:
    provider = ScriptedProvider(lambda m: answer)
    llm = LLM(provider, cache=None, max_retries=max_retries)
    with pytest.raises(LLMOutputError) as info:
        llm.structured("extract", MESSAGES, Entities)
    assert provider.calls == max_retries + 1
    assert info.value.task == "extract" and info.value.attempts == max_retries + 1
    assert "'extract'" in str(info.value) and len(str(info.value)) < 600
    usage = llm.ledger.get("extract")
    assert (usage.failures, usage.retries) == (1, max_retries)


def test_a_refused_request_is_an_output_error_without_retries() -> None:
    def too_long(messages: list[Message]) -> str:
        raise LLMRequestError("prompt exceeds the context window")

    provider = ScriptedProvider(too_long)
    llm = LLM(provider, cache=None, max_retries=2)
    with pytest.raises(LLMOutputError, match="context window"):
        llm.structured("extract", MESSAGES, Entities)
    assert provider.calls == 1 and llm.ledger.get("extract").failures == 1


def numbered(messages: list[Message]) -> str:
    """Answers ``item N`` with an entity named ``item N``; item 3 always answers badly."""
    match = re.search(r"item (\d+)", messages[1]["content"])
    assert match is not None
    time.sleep(random.uniform(0, 0.01))
    if match.group(1) == "3":
        return "no"
    return json.dumps({"entities": [{"name": match.group(0), "type": "thing"}]})


@pytest.mark.parametrize("concurrency", [1, 4])
def test_structured_many_keeps_order_and_goes_past_a_bad_item(concurrency: int) -> None:
    provider = ScriptedProvider(numbered)
    llm = LLM(provider, cache=None, max_retries=1, concurrency=concurrency)
    assert llm.concurrency == concurrency
    progress: list[int] = []
    requests = [chat(f"item {i}") for i in range(12)]
    results = llm.structured_many("extract", requests, Entities, on_done=progress.append)
    assert len(results) == 12
    for i, result in enumerate(results):
        if i == 3:
            assert isinstance(result, LLMOutputError)
        else:
            assert isinstance(result, Entities) and result.entities[0].name == f"item {i}"
    assert progress == list(range(1, 13))
    assert provider.calls == 11 + 2
    assert llm.ledger.get("extract").failures == 1


def test_structured_many_raises_when_the_model_is_unusable() -> None:
    def dead(messages: list[Message]) -> str:
        if "item 2" in messages[1]["content"]:
            raise LLMError("connection refused")
        return GOOD

    llm = LLM(ScriptedProvider(dead), cache=None, concurrency=2)
    with pytest.raises(LLMError, match="connection refused") as info:
        llm.structured_many("extract", [chat(f"item {i}") for i in range(6)], Entities)
    assert not isinstance(info.value, LLMOutputError)


def test_concurrency_is_bounded_by_the_provider() -> None:
    single = ScriptedProvider(lambda m: GOOD, concurrency=1)
    assert LLM(single, cache=None, concurrency=8).concurrency == 1
    assert LLM(ScriptedProvider(lambda m: GOOD), cache=None).concurrency == 8
    active = 0
    peak = 0
    lock = threading.Lock()

    def slow(messages: list[Message]) -> str:
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        time.sleep(0.02)
        with lock:
            active -= 1
        return GOOD

    llm = LLM(ScriptedProvider(slow, concurrency=8), cache=None, concurrency=3)
    llm.structured_many("extract", [chat(f"item {i}") for i in range(12)], Entities)
    assert 1 < peak <= 3


def test_recorded_provider_answers_by_key_and_refuses_unknown_requests(tmp_path: Path) -> None:
    fixture = tmp_path / "responses.json"
    fixture.write_text(
        json.dumps(
            {
                "Warsaw": GOOD,
                "born in Warsaw": {"entities": [{"name": "Warsaw", "type": "place"}]},
                "Summarise the community": '{"entities": []}',
            }
        )
    )
    provider = RecordedProvider.from_file(fixture)
    llm = LLM(provider, cache=None)
    longest = llm.structured("extract", MESSAGES, Entities)
    assert longest.entities[0].name == "Warsaw"
    by_system_prompt = chat("anything", system="Summarise the community below.")
    assert llm.structured("summarise", by_system_prompt, Entities).entities == []
    with pytest.raises(UnknownRequestError, match="Ada Lovelace"):
        llm.structured("extract", chat("Ada Lovelace wrote programs."), Entities)
    assert provider.calls == 3
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    with pytest.raises(LLMError, match="expected a JSON object"):
        RecordedProvider.from_file(bad)


def test_the_schema_instruction_goes_last_unless_the_system_turn_holds_it() -> None:
    """Extraction puts its schema in the system turn (every call shares that prefix; the
    passage is what differs): it is not repeated after the passage."""
    from graphmind.extract.extractor import ChunkText, messages_for
    from graphmind.extract.models import Extraction
    from graphmind.llm.base import schema_instruction, with_instruction
    from graphmind.llm.client import output_schema

    told = schema_instruction(output_schema(Extraction))
    asked = messages_for(ChunkText("c", "Otto Hahn", "Otto Hahn was born in Frankfurt."))
    assert told in asked[0]["content"] and with_instruction(asked, told) == asked
    plain = [{"role": "system", "content": "Extract."}, {"role": "user", "content": "A text."}]
    shown = with_instruction(plain, told)
    assert shown[0] == plain[0] and shown[1]["content"] == "A text.\n\n" + told


def test_an_output_model_with_an_example_is_shown_the_example_not_its_schema() -> None:
    """The full answer's prompt names its fields, so the model is shown a 40-token example
    (in field order) instead of a 130-token schema; the schema still constrains the output."""
    from graphmind.ask.models import Answer, FullAnswer
    from graphmind.llm.base import schema_instruction
    from graphmind.llm.client import output_schema

    schema = output_schema(FullAnswer)
    told = schema_instruction(schema)
    assert "JSON schema" not in told and "$defs" not in told and "maxLength" not in told
    shown = json.loads(told.split("\n", 1)[1])
    assert shown == FullAnswer.example and list(shown["sentences"][0]) == ["text", "citations"]
    assert FullAnswer.model_validate(shown).sentences[1].citations == [1, 3]
    assert schema["properties"] == FullAnswer.model_json_schema()["properties"]
    assert "examples" not in output_schema(Answer) and "JSON schema" in schema_instruction(
        output_schema(Answer)
    )
