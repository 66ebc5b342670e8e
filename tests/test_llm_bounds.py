"""String bounds kept while a local model writes JSON (llama.cpp's grammar leaves them out)."""

from __future__ import annotations

import json

from graphmind.ask.models import MAX_CHECK_CHARS, Check
from graphmind.extract.models import Extraction
from graphmind.llm.bounds import StringBounds, string_limits


def rooms(bounds: StringBounds, text: str) -> list[int | None]:
    """The room after each character of ``text``."""
    out: list[int | None] = []
    for ch in text:
        bounds.feed(ch)
        out.append(bounds.room())
    return out


def test_limits_are_found_by_property_name_in_nested_models() -> None:
    values, items = string_limits(Extraction.model_json_schema())
    assert values["name"] == 200 and values["predicate"] == 100 and values["type"] == 60
    assert values["description"] == 500 and items == {}
    values, _ = string_limits(Check.model_json_schema())
    assert values == {"missing": MAX_CHECK_CHARS, "query": MAX_CHECK_CHARS}
    _, items = string_limits(
        {"properties": {"probes": {"type": "array", "items": {"type": "string", "maxLength": 9}}}}
    )
    assert items == {"probes": 9}


def test_only_the_open_value_of_a_bounded_property_has_room() -> None:
    bounds = StringBounds({"query": 5, "name": 3}, {"probes": 2})
    text = '{"query": "ab\\"c", "name": "xy", "complete": true, "probes": ["p"], "other": "zz"}'
    room = dict(zip(range(len(text)), rooms(bounds, text), strict=True))
    at = text.index  # room after a character
    assert room[at('"query"') + 3] is None  # inside a key: no bound
    assert room[at('"ab') + 1] == 4 and room[at('"ab') + 2] == 3  # "a", "b" written
    assert room[at("\\")] is None  # an escape half written
    assert room[at("\\") + 1] == 1  # \" counts as written: two characters
    assert room[at('c"')] == 0
    assert room[at('c"') + 1] is None  # closed
    assert room[at('"xy') + 1] == 2
    assert room[at('"p"') + 1] == 1  # a string item of a bounded array
    assert room[at('"zz') + 1] is None  # an unbounded property


def test_bounds_follow_objects_inside_arrays() -> None:
    bounds = StringBounds({"name": 4, "type": 2}, {})
    text = json.dumps({"entities": [{"name": "Ada", "type": "p"}, {"type": "x", "name": "B"}]})
    seen = [r for r in rooms(bounds, text) if r is not None]
    assert seen == [4, 3, 2, 1, 2, 1, 2, 1, 4, 3]  # opened, then each character: "Ada" "p" "x" "B"


def test_a_check_text_over_its_bound_is_cut_not_refused() -> None:
    long = "x" * (MAX_CHECK_CHARS + 50)
    check = Check.model_validate({"complete": False, "missing": long, "query": long})
    assert len(check.missing) == len(check.query) == MAX_CHECK_CHARS
