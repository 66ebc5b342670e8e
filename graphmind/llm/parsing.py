"""Tolerant parsing of model text into a pydantic model.

Small local models wrap JSON in reasoning (``<think>`` blocks), code fences and
prose, and stop mid-object at the token limit. ``parse_output`` strips the
wrapping, finds the first JSON value, closes what a truncation left open, wraps
a bare list into a model's only list field, and validates. Anything it cannot
turn into a valid model raises ``OutputParseError`` with a short message fit to
quote back to the model.
"""

from __future__ import annotations

import json
import re
import types
import typing
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import BaseModel, ValidationError

_THINK_BLOCK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[ \t]*[A-Za-z0-9_-]*[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_MAX_ERRORS = 5
_MAX_STARTS = 64


class OutputParseError(ValueError):
    """Model text that is not a valid instance of the expected output."""


def strip_reasoning(text: str) -> str:
    """Drop ``<think>…</think>`` blocks, text before an orphan ``</think>``, a lone ``<think>``."""
    text = _THINK_BLOCK.sub("", text)
    lower = text.lower()
    close = lower.rfind("</think>")
    if close >= 0:
        text = text[close + len("</think>") :]
        lower = text.lower()
    start = lower.find("<think>")
    if start >= 0:  # unclosed: the reasoning ran to the end; JSON may still follow it
        text = text[:start] + text[start + len("<think>") :]
    return text


def _fenced(text: str) -> list[str]:
    """Contents of code fences (an unclosed last fence runs to the end) that hold JSON."""
    return [m.group(1) for m in _FENCE.finditer(text) if "{" in m.group(1) or "[" in m.group(1)]


def iter_json(text: str) -> Iterator[Any]:
    """JSON values found in ``text``, best first: fenced blocks, then the text itself.

    A value that was cut off is repaired. Objects nested inside a value already
    yielded are not yielded again.
    """
    body = strip_reasoning(text)
    # strict=False: a raw tab or newline inside a string (small models write them) is kept
    decoder = json.JSONDecoder(strict=False)
    for candidate in [*_fenced(body), body]:
        skip_to = 0
        tried = 0
        for start, ch in enumerate(candidate):
            if ch not in "{[" or start < skip_to:
                continue
            tried += 1
            if tried > _MAX_STARTS:
                break
            try:
                value, skip_to = decoder.raw_decode(candidate, start)
            except json.JSONDecodeError:
                repairs = [repair_json(candidate[start:], drop_partial=d) for d in (False, True)]
                values = _decoded(decoder, dict.fromkeys(r for r in repairs if r is not None))
                if values:
                    yield from values
                    skip_to = len(candidate)
                continue
            yield value


def _decoded(decoder: json.JSONDecoder, texts: Iterable[str]) -> list[Any]:
    """The values of those ``texts`` that decode (a repair can still be malformed)."""
    values = []
    for text in texts:
        try:
            values.append(decoder.decode(text))
        except json.JSONDecodeError:
            continue
    return values


def extract_json(text: str) -> Any:
    """The first JSON object or array in ``text``, repairing a truncated one."""
    for value in iter_json(text):
        return value
    raise OutputParseError(_no_json(text))


def _no_json(text: str) -> str:
    snippet = " ".join(strip_reasoning(text).split())[:120]
    return f"no JSON object found in the answer (it began: {snippet!r})"


_LITERALS = ("true", "false", "null")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_NUMBER_CHARS = frozenset("0123456789+-.eE")
_OPEN = {"{": "}", "[": "]"}


def repair_json(fragment: str, *, drop_partial: bool = False) -> str | None:
    """Complete a JSON value cut off at the end; None when it is malformed, not just cut.

    Closes an open string (dropping a half escape), drops a dangling key, colon,
    comma or half literal, and closes open arrays and objects. With
    ``drop_partial`` it instead cuts back to the last complete array element, so
    a half-written item is dropped rather than kept with missing fields. Text
    after a complete top-level value is ignored.
    """
    out: list[str] = []
    stack: list[str] = []  # "{" or "["
    # what the innermost container expects next: "value", "key", "colon", "comma"
    expect = "value"
    safe = 0  # len(out) at the last point where closing the stack gives valid JSON
    safe_stack: list[str] = []
    i, n = 0, len(fragment)

    def mark() -> None:
        nonlocal safe, safe_stack
        safe, safe_stack = len(out), list(stack)

    def after_value() -> None:
        nonlocal expect
        expect = "comma" if stack else "done"
        if not drop_partial or not stack or stack[-1] == "[":
            mark()

    while i < n and expect != "done":
        ch = fragment[i]
        if ch in " \t\r\n":
            i += 1
            continue
        if ch == '"':
            j, closed = _scan_string(fragment, i)
            token = fragment[i:j] if closed else _close_string(fragment[i:j])
            if expect == "key":
                if not closed:
                    break
                out.append(token)
                expect = "colon"
            elif expect == "value":
                if not closed and drop_partial:
                    break
                out.append(token)
                after_value()
                if not closed:
                    break
            else:
                return None
            i = j
            continue
        if ch in _OPEN:
            if expect != "value":
                return None
            out.append(ch)
            stack.append(ch)
            expect = "key" if ch == "{" else "value"
            if ch == "[" or not drop_partial:
                mark()
            i += 1
            continue
        if ch in "}]":
            if not stack or _OPEN[stack[-1]] != ch:
                return None
            if out[-1] == ",":  # a trailing comma before the closer
                out.pop()
            elif expect == "colon" or out[-1] == ":":
                return None
            stack.pop()
            out.append(ch)
            after_value()
            i += 1
            continue
        if ch == ",":
            if expect != "comma":
                return None
            out.append(ch)
            expect = "key" if stack[-1] == "{" else "value"
            i += 1
            continue
        if ch == ":":
            if expect != "colon":
                return None
            out.append(ch)
            expect = "value"
            i += 1
            continue
        if expect != "value":
            return None
        end = i
        while end < n and fragment[end] in _NUMBER_CHARS:
            end += 1
        if end > i:
            if _NUMBER.fullmatch(fragment, i, end):
                out.append(fragment[i:end])
                after_value()
                i = end
                continue
            if end == n:
                break  # a number cut off at the end
            return None
        word = next((lit for lit in _LITERALS if fragment.startswith(lit, i)), None)
        if word is not None:
            out.append(word)
            after_value()
            i += len(word)
            continue
        rest = fragment[i:]
        if any(lit.startswith(rest) for lit in _LITERALS):
            break  # a literal cut off at the end
        return None
    if not out or (expect != "done" and safe == 0):
        return None
    if expect == "done":
        return "".join(out)
    return "".join(out[:safe]) + "".join(_OPEN[c] for c in reversed(safe_stack))


def _scan_string(text: str, start: int) -> tuple[int, bool]:
    """End index of the string starting at ``start`` (after its quote) and whether it closed."""
    i = start + 1
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == '"':
            return i + 1, True
        i += 1
    return len(text), False


def _close_string(token: str) -> str:
    """Close a string cut off at the end, dropping a half-written escape."""
    i = 1
    while i < len(token):
        if token[i] == "\\":
            width = 6 if token[i + 1 : i + 2] == "u" else 2
            if i + width > len(token):
                return token[:i] + '"'
            i += width
        else:
            i += 1
    return token + '"'


def _list_field(output: type[BaseModel]) -> str | None:
    """The key of the model's only list field, when every other field has a default."""
    lists = []
    for name, field in output.model_fields.items():
        if _is_list(field.annotation):
            lists.append(field.alias or name)
        elif field.is_required():
            return None
    return lists[0] if len(lists) == 1 else None


def _is_list(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if origin in (list, tuple, set, frozenset):
        return True
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return len(args) == 1 and _is_list(args[0])
    return annotation in (list, tuple, set, frozenset)


def validation_summary(exc: ValidationError) -> str:
    """A short, model-readable list of what failed validation."""
    parts = []
    for err in exc.errors()[:_MAX_ERRORS]:
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        parts.append(f"{where}: {err['msg']}")
    more = exc.error_count() - _MAX_ERRORS
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)


def parse_output[T: BaseModel](text: str, output: type[T]) -> T:
    """Turn model text into a validated ``output``; OutputParseError says why it cannot.

    The first JSON value that validates wins; when none does, the error is the
    first value's.
    """
    key = _list_field(output)
    first: ValidationError | None = None
    for data in iter_json(text):
        if isinstance(data, list) and key is not None:
            data = {key: data}
        try:
            return output.model_validate(data)
        except ValidationError as exc:
            first = first or exc
    if first is None:
        raise OutputParseError(_no_json(text))
    raise OutputParseError(f"the JSON does not match the schema: {validation_summary(first)}")
