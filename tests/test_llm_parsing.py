"""Tolerant parsing of model text: reasoning, fences, prose, bare lists, truncation."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from graphmind.llm.parsing import (
    OutputParseError,
    extract_json,
    parse_output,
    repair_json,
    strip_reasoning,
)


class Entity(BaseModel):
    name: str
    type: str


class Entities(BaseModel):
    entities: list[Entity]


class Summary(BaseModel):
    title: str
    text: str


class TwoLists(BaseModel):
    entities: list[Entity]
    relations: list[str]


GOOD = '{"entities": [{"name": "Marie Curie", "type": "person"}]}'


def names(value: Entities) -> list[str]:
    return [e.name for e in value.entities]


def test_code_fences_and_surrounding_prose_are_ignored() -> None:
    text = f"Sure! Here are the entities:\n```json\n{GOOD}\n```\nLet me know if you need more."
    assert names(parse_output(text, Entities)) == ["Marie Curie"]
    unlabelled = f"```\n{GOOD}\n```"
    assert names(parse_output(unlabelled, Entities)) == ["Marie Curie"]
    prose_only = f"The answer is {GOOD} as requested."
    assert names(parse_output(prose_only, Entities)) == ["Marie Curie"]


def test_think_blocks_are_stripped_even_with_braces_inside() -> None:
    text = f'<think>The schema wants {{entities}} and maybe [a list]. {{"x": 1}}</think>\n{GOOD}'
    assert names(parse_output(text, Entities)) == ["Marie Curie"]
    orphan_close = f'I think {{"entities": []}} is wrong.</think>{GOOD}'
    assert names(parse_output(orphan_close, Entities)) == ["Marie Curie"]
    unclosed = f"<think>\nI will list the people.\n{GOOD}"
    assert names(parse_output(unclosed, Entities)) == ["Marie Curie"]
    assert strip_reasoning("<THINK>a</THINK>b<think>c</think>d") == "bd"


def test_bare_list_is_wrapped_into_the_only_list_field() -> None:
    text = '[{"name": "Warsaw", "type": "place"}]'
    assert names(parse_output(text, Entities)) == ["Warsaw"]
    with pytest.raises(OutputParseError, match="does not match the schema"):
        parse_output(text, TwoLists)


def test_truncated_json_is_closed_and_a_half_item_dropped() -> None:
    cut = '{"entities": [{"name": "Marie Curie", "type": "person"}, {"name": "War'
    assert names(parse_output(cut, Entities)) == ["Marie Curie"]
    cut_string = '{"title": "Curie", "text": "She was born in War'
    assert parse_output(cut_string, Summary).text == "She was born in War"
    cut_fence = '```json\n{"entities": [{"name": "Warsaw", "type": "place"}'
    assert names(parse_output(cut_fence, Entities)) == ["Warsaw"]


@pytest.mark.parametrize(
    ("fragment", "lenient", "strict"),
    [
        ('{"a": 1, "b', '{"a":1}', None),
        ('{"a": 1, "b":', '{"a":1}', None),
        ('{"a": 1,', '{"a":1}', None),
        ('{"a": tru', "{}", None),
        ('{"a": 1.', "{}", None),
        ('{"a": "x\\', '{"a":"x"}', None),
        ('{"a": "x\\u00', '{"a":"x"}', None),
        ('{"a": "x\\\\', '{"a":"x\\\\"}', None),
        ("[1, 2,]", "[1,2]", "[1,2]"),
        ('{"a": [1, {"b": nul', '{"a":[1,{}]}', '{"a":[1]}'),
        ('{"a": 1} and then {', '{"a":1}', '{"a":1}'),
        ('{"a":}', None, None),
        ("{name, type}", None, None),
        ('{"a": 1 "b": 2}', None, None),
        ("[see below]", None, None),
    ],
)
def test_repair_json(fragment: str, lenient: str | None, strict: str | None) -> None:
    assert repair_json(fragment) == lenient
    assert repair_json(fragment, drop_partial=True) == strict


def test_the_first_value_that_validates_wins() -> None:
    text = f'For example {{"foo": 1}} would be wrong; the answer: {GOOD}'
    assert names(parse_output(text, Entities)) == ["Marie Curie"]
    assert extract_json(text) == {"foo": 1}


def test_errors_name_the_problem() -> None:
    with pytest.raises(OutputParseError, match=r"no JSON object found.*I cannot help"):
        parse_output("I cannot help with that.", Entities)
    with pytest.raises(OutputParseError, match=r"entities\.0\.type: Field required"):
        parse_output('{"entities": [{"name": "Warsaw"}]}', Entities)
    with pytest.raises(
        OutputParseError, match=r"entities\.0\.name: Input should be a valid string"
    ):
        parse_output('{"entities": [{"name": ["Marie"], "type": "person"}]}', Entities)
    with pytest.raises(OutputParseError):
        parse_output("", Entities)


def test_raw_control_characters_inside_strings_are_kept() -> None:
    """A small model writes a raw tab or newline inside a JSON string: whole or cut off,
    the value is read (it used to escape as a JSONDecodeError)."""
    whole = '{"title": "A\tB", "text": "line one\nline two"}'
    assert parse_output(whole, Summary) == Summary(title="A\tB", text="line one\nline two")
    cut = '{"entities": [{"name": "Marie\tCurie", "type": "person"}, {"name": "Pierre'
    assert names(parse_output(cut, Entities)) == ["Marie\tCurie"]
