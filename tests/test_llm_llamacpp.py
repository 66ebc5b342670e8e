"""The real in-process llama.cpp provider on the fetched default model (slow)."""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel, Field

from graphmind.config import load_settings
from graphmind.core.errors import LLMOutputError
from graphmind.llm import LLM, ResponseCache, default_gguf_path
from graphmind.llm.client import output_schema
from graphmind.llm.llamacpp_provider import LlamaCppProvider


class Entity(BaseModel):
    name: str
    type: str


class Entities(BaseModel):
    entities: list[Entity]


MESSAGES = [
    {
        "role": "system",
        "content": "Extract the named entities (people, places, organisations) from the text.",
    },
    {"role": "user", "content": "Marie Curie was born in Warsaw."},
]


@pytest.mark.slow
def test_the_default_offline_model_extracts_entities(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    settings = load_settings()
    path = default_gguf_path(settings.model_path)
    if path is None:
        pytest.skip(f"no default model in {settings.model_dir}: run scripts/fetch_model.py")
    provider = LlamaCppProvider(path, n_ctx=2048)
    llm = LLM(provider, cache=ResponseCache(tmp_path / "cache.sqlite"), max_tokens=256)
    started = time.monotonic()
    result = llm.structured("extract", MESSAGES, Entities)
    seconds = time.monotonic() - started
    usage = llm.ledger.get("extract")
    print(
        f"\nllama.cpp {path.name}: {seconds:.2f} s (load + {usage.calls} call(s)), "
        f"{usage.prompt_tokens} prompt + {usage.completion_tokens} completion tokens: {result}"
    )
    names = " ".join(e.name for e in result.entities)
    assert "Curie" in names or "Warsaw" in names
    assert usage.prompt_tokens > 0 and usage.completion_tokens > 0

    again = llm.structured("extract", MESSAGES, Entities)
    assert again == result and llm.ledger.get("extract").cache_hits == 1

    too_long = [MESSAGES[0], {"role": "user", "content": "Marie Curie was born. " * 600}]
    with pytest.raises(LLMOutputError, match="exceed context window") as refused:
        llm.structured("extract", too_long, Entities)
    assert "set GRAPHMIND_LLM_CONTEXT higher" in str(refused.value)
    provider.close()


def test_grammar_schema_drops_bounds_the_grammar_cannot_afford() -> None:
    from graphmind.communities.report import CommunityReport
    from graphmind.llm.llamacpp_provider import grammar_schema

    schema = CommunityReport.model_json_schema()
    assert schema["properties"]["summary"]["maxLength"] == 1500
    bare = grammar_schema(schema)
    assert "maxLength" not in str(bare) and "minLength" not in str(bare)
    assert bare["properties"]["summary"]["type"] == "string"
    assert bare["required"] == schema["required"]
    from graphmind.ask.models import FullAnswer
    from graphmind.llm.client import output_schema

    shown = output_schema(FullAnswer)
    assert "examples" in shown and "examples" not in grammar_schema(shown)  # prompt text only


class Free(BaseModel):
    query: str


class Query(BaseModel):
    query: str = Field(max_length=40)


PASSAGE = (
    "Lise Meitner was an Austrian-Swedish physicist who was one of those responsible for "
    "the discovery of nuclear fission. She worked with Otto Hahn in Berlin for thirty "
    "years, at the Kaiser Wilhelm Institute for Chemistry, and left Germany in 1938."
)


@pytest.mark.slow
def test_the_local_model_keeps_a_string_within_its_max_length(tmp_path: Path) -> None:
    """Told to copy a passage into a field, the model writes more than 40 characters;
    with a 40-character bound it stops at 40 (kept while it writes, not by the grammar):
    no token cap, no repair."""
    llm = local_llm(max_tokens=160)
    asked = [
        {
            "role": "user",
            "content": f"Copy this whole text, word for word, into the field query: {PASSAGE}",
        }
    ]
    assert len(llm.structured("free", asked, Free).query) > 40
    result = llm.structured("copy", asked, Query)
    usage = llm.ledger.get("copy")
    assert 30 <= len(result.query) <= 40
    assert (usage.calls, usage.retries, usage.capped) == (1, 0, 0)


class Copied(BaseModel):
    sentence: str = Field(max_length=300)


class Pick(BaseModel):
    better: Literal["1", "2"]
    surer: Literal["1", "2"]


@pytest.mark.slow
def test_the_local_model_gives_the_odds_of_its_choices() -> None:
    """Odds of both asked fields, normalised over their options, and the option the
    model chose is the likelier one when it was not a close call."""
    llm = local_llm(max_tokens=32)
    asked = [
        {
            "role": "user",
            "content": "What is 2 + 2?\nAnswer 1: 4, since two and two make four.\n"
            'Answer 2: 5.\nReturn JSON: "better": the better answer, "1" or "2"; "surer": '
            'the answer more sure of itself, "1" or "2".',
        }
    ]
    said, odds = llm.structured_odds(
        "judge", asked, Pick, {"better": ["1", "2"], "surer": ["1", "2"]}
    )
    assert odds is not None and set(odds) == {"better", "surer"}
    for field, pair in odds.items():
        assert math.exp(pair["1"]) + math.exp(pair["2"]) == pytest.approx(1.0)
        if abs(pair["1"] - pair["2"]) > 0.5:
            assert getattr(said, field) == max(pair, key=pair.__getitem__)


@pytest.mark.slow
def test_checking_the_grammar_on_the_best_token_first_changes_no_output() -> None:
    """Greedy decoding tries the best token against the grammar before filtering the whole
    vocabulary: the same text, token counts and odds as llama-cpp-python's own sampler."""
    asked = [
        {
            "role": "user",
            "content": "What is 2 + 2?\nAnswer 1: 4, since two and two make four.\n"
            'Answer 2: 5.\nReturn JSON: "better": the better answer, "1" or "2"; "surer": '
            'the answer more sure of itself, "1" or "2".',
        }
    ]
    outputs = []
    for greedy_first in (False, True):
        llm = local_llm(max_tokens=160, greedy_first=greedy_first, draft_tokens=0)
        extracted = llm.provider.complete(
            MESSAGES, schema=output_schema(Entities), max_tokens=160, temperature=0.0
        )
        bounded = llm.structured("copy", [{"role": "user", "content": PASSAGE}], Query)
        said, odds = llm.structured_odds(
            "judge", asked, Pick, {"better": ["1", "2"], "surer": ["1", "2"]}
        )
        outputs.append((extracted.text, extracted.completion_tokens, bounded, said, odds))
    assert outputs[0] == outputs[1]
    assert "Curie" in outputs[1][0] and outputs[1][1] > 0


@pytest.mark.slow
def test_drafts_from_the_prompt_change_no_output_and_take_fewer_decodes() -> None:
    """Tokens guessed from the prompt are kept only where the greedy pick agrees: here the
    same text, token counts and bounded strings as one decode a token (a near tie can
    round the other way), and the same odds (a call reading odds drafts nothing)."""
    asked = [{"role": "user", "content": PASSAGE + "\nCopy its second sentence."}]
    judged = [{"role": "user", "content": "Is 2 + 2 four?\nAnswer 1: yes.\nAnswer 2: no."}]
    outputs, decodes = [], []
    for tokens in (0, 4):
        llm = local_llm(max_tokens=160, draft_tokens=tokens)
        copied = llm.provider.complete(
            asked, schema=output_schema(Copied), max_tokens=160, temperature=0.0
        )
        draft = llm.provider.draft  # type: ignore[attr-defined]
        decodes.append(draft.steps)
        bounded = llm.structured("copy", [{"role": "user", "content": PASSAGE}], Query)
        extracted = llm.provider.complete(
            MESSAGES, schema=output_schema(Entities), max_tokens=160, temperature=0.0
        )
        said, odds = llm.structured_odds(
            "judge", judged, Pick, {"better": ["1", "2"], "surer": ["1", "2"]}
        )
        outputs.append((copied.text, copied.completion_tokens, bounded, extracted.text, said, odds))
    assert outputs[0] == outputs[1]
    assert "thirty years" in outputs[1][0]
    assert decodes[0] == 0  # no draft asked for
    assert 0 < decodes[1] < outputs[1][1] - 5  # a decode for several copied tokens


def test_a_draft_is_what_followed_the_last_tokens_where_they_occurred_first() -> None:
    import numpy as np

    from graphmind.llm.llamacpp_draft import PromptLookup, lookup

    ids = np.array([5, 1, 2, 3, 4, 9, 1, 2, 3, 8, 7, 1, 2, 3], dtype=np.intc)
    assert lookup(ids, 3, 3, 2).tolist() == [4, 9, 1]  # "1 2 3" first at 1: then 4 9 1
    assert lookup(ids, 10, 3, 2).tolist()[:2] == [4, 9]
    assert lookup(np.array([1, 2, 3, 4]), 4, 3, 2).tolist() == []  # nothing recurs
    assert lookup(np.array([6, 7, 0, 6, 7]), 2, 3, 2).tolist() == [0, 6]  # a 2-gram
    draft = PromptLookup(4)
    assert draft(ids).tolist() == []  # inactive: only greedy grammar-bound calls draft
    draft.active = True
    assert draft(ids).tolist() == [4, 9, 1, 2] and draft.steps == 1


def local_llm(*, max_tokens: int, greedy_first: bool = True, draft_tokens: int = 4) -> LLM:
    """The default offline model, uncached (skips without llama.cpp or the model)."""
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    settings = load_settings()
    path = default_gguf_path(settings.model_path)
    if path is None:
        pytest.skip(f"no default model in {settings.model_dir}: run scripts/fetch_model.py")
    provider = LlamaCppProvider(
        path, n_ctx=2048, greedy_first=greedy_first, draft_tokens=draft_tokens
    )
    return LLM(provider, cache=None, max_tokens=max_tokens)


def test_saved_prompts_are_found_by_their_longest_shared_prefix_and_bounded() -> None:
    import numpy as np

    from graphmind.llm.llamacpp_states import MIN_SHARED, PrefixStates, SavedState

    def state(tokens: list[int], size: int) -> SavedState:
        return SavedState(np.array(tokens, dtype=np.intc), b"\0" * size)

    def ids(*tail: int) -> list[int]:
        return [*range(MIN_SHARED), *tail]  # MIN_SHARED tokens in common, then ``tail``

    saved = PrefixStates(capacity_bytes=100)
    saved[ids(1, 2)] = state(ids(1, 2), 40)
    saved[ids(1, 2, 3, 4)] = state(ids(1, 2, 3, 4), 40)
    assert saved[ids(1, 2, 3, 9)].input_ids.tolist() == ids(1, 2, 3, 4)
    assert saved[ids(1, 7)].input_ids.tolist()[-2:] == [1, 2]  # 65 shared, not 64
    with pytest.raises(KeyError):
        saved[[*range(MIN_SHARED - 1), 5]]  # fewer than MIN_SHARED in common: not restored
    # over capacity: the least recently used goes (the one just found stays)
    saved[[7] * MIN_SHARED] = state([7] * MIN_SHARED, 40)
    assert len(saved.states) == 2 and tuple(ids(1, 2)) in saved.states
    saved[[8] * MIN_SHARED] = state([8] * MIN_SHARED, 101)  # larger than all: not kept
    assert tuple([8] * MIN_SHARED) not in saved.states
    assert bool(saved) and not PrefixStates(0)


@pytest.mark.slow
def test_a_conversation_resumed_after_another_reads_only_its_new_turn() -> None:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    path = default_gguf_path(load_settings().model_path)
    if path is None:
        pytest.skip("no default model: run scripts/fetch_model.py")
    passages = " ".join(
        f"Town {i} lies on river {i * 7 % 13} and has {i * 3} bridges." for i in range(24)
    )
    first = [MESSAGES[0], {"role": "user", "content": passages}]
    other = [MESSAGES[0], {"role": "user", "content": "Otto Hahn was born in Frankfurt."}]

    def resumed(provider: LlamaCppProvider, between: bool) -> tuple[str, int]:
        said = provider.complete(first, schema=SCHEMA, max_tokens=24, temperature=0.0).text
        if between:
            provider.complete(other, schema=SCHEMA, max_tokens=24, temperature=0.0)
        read: list[int] = []
        llama = provider._llama
        evaluate = llama.eval
        llama.eval = lambda tokens: (read.append(len(tokens)), evaluate(tokens))[1]
        going_on = [
            *first,
            {"role": "assistant", "content": said},
            {"role": "user", "content": "Now the rivers, as entities."},
        ]
        out = provider.complete(going_on, schema=SCHEMA, max_tokens=24, temperature=0.0)
        llama.eval = evaluate
        return out.text, read[0]  # the prompt's tokens read; then one a generated token

    saving = LlamaCppProvider(path, n_ctx=2048)
    text, read = resumed(saving, between=True)
    assert saving.saved is not None and saving.saved.restored == 1
    assert read < 200  # the new turn and its schema, not the passages again (about 400)
    saving.close()
    # the same as resuming straight after the first call, from the context itself
    plain = LlamaCppProvider(path, n_ctx=2048, saved_prompts_bytes=0)
    assert resumed(plain, between=False) == (text, read)
    plain.close()


SCHEMA = output_schema(Entities)
