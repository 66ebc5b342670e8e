"""A local model's repeated list items end its generation (graphmind.llm.loops)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from graphmind.llm.llamacpp_provider import _read_until_loop
from graphmind.llm.loops import repeated_tail
from graphmind.llm.parsing import parse_output

ITEM = '{"subject": "Payment on Demand", "predicate": "starring", "object": "Curtis Bernhardt"}'
OTHER = '{"subject": "Payment on Demand", "predicate": "directed by", "object": "Curtis Bernhardt"}'


class Relation(BaseModel):
    subject: str
    predicate: str
    object: str


class Relations(BaseModel):
    relations: list[Relation]


def test_the_third_copy_of_an_item_is_a_loop_and_is_cut_off() -> None:
    head = '{"relations": [' + OTHER + ", " + ITEM + ", " + ITEM
    assert repeated_tail(head) is None  # two copies may be a slip
    looping = head + ", " + ITEM.replace(", ", ",  ")  # spacing does not hide a copy
    assert repeated_tail(looping) == head
    # the token that closes the item often opens the next one too
    assert repeated_tail(looping + ', {"') == head


def test_different_items_and_nested_objects_are_not_loops() -> None:
    items = ", ".join(ITEM.replace("Curtis Bernhardt", name) for name in ["A", "B", "C", "D"])
    assert repeated_tail('{"relations": [' + items) is None
    assert repeated_tail('{"a": {"b": 1}, "c": {"b": 1}, "d": {"b": 1}') is None  # not a list
    assert repeated_tail("no object here") is None


def _stream(pieces: list[str], closed: list[bool]) -> Iterator[dict[str, Any]]:
    """llama-cpp-python's chunks: the last says the model stopped (its end-of-text)."""
    try:
        for piece in pieces:
            yield {"choices": [{"delta": {"content": piece}, "finish_reason": None}]}
        yield {"choices": [{"delta": {}, "finish_reason": "stop"}]}
    finally:
        closed.append(True)


def test_a_stream_that_loops_is_closed_and_its_items_so_far_parse() -> None:
    tokens = ['{"relations": [', OTHER, ", ", ITEM]
    tokens += [", " + ITEM[:20], ITEM[20:]] * 40 + ["]}"]
    closed: list[bool] = []
    text, ended = _read_until_loop(_stream(tokens, closed))
    assert closed == [True] and not ended
    assert text.count("starring") == 2 and len(text) < 400
    parsed = parse_output(text, Relations)  # cut off, repaired like any cut-off answer
    assert [r.predicate for r in parsed.relations] == ["directed by", "starring", "starring"]


def test_a_stream_without_a_loop_is_read_to_its_end() -> None:
    tokens = ['{"relations": [', OTHER, ", ", ITEM, "]}"]
    closed: list[bool] = []
    assert _read_until_loop(_stream(tokens, closed)) == ("".join(tokens), True)
    assert closed == [True]
