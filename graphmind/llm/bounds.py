"""String length bounds of a JSON schema, kept while a model writes the JSON.

llama.cpp cannot afford ``maxLength`` in its grammar (a bounded repetition: a 1,500-
character bound crashed the sampler, a 160-character one made each token ~20x slower),
so a small model could copy a whole passage into a field, run to its token cap, and fail
validation. ``StringBounds`` follows the generated text character by character (which
string is open, under which property) and says how much room the open string has left;
the provider then keeps longer tokens out and closes the string when no room is left.
"""

from __future__ import annotations

from typing import Any


def string_limits(schema: dict[str, Any]) -> tuple[dict[str, int], dict[str, int]]:
    """``maxLength`` of string properties by property name, and of the string items of
    array properties by the array's name, anywhere in ``schema`` (``$defs`` included;
    where one name has several bounds, the smallest)."""
    values: dict[str, int] = {}
    items: dict[str, int] = {}

    def keep(into: dict[str, int], name: str, node: Any) -> None:
        bound = node.get("maxLength") if isinstance(node, dict) else None
        if isinstance(bound, int) and bound >= 0:
            into[name] = min(bound, into.get(name, bound))

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for name, prop in (node.get("properties") or {}).items():
                if isinstance(prop, dict):
                    keep(values, name, prop)
                    keep(items, name, prop.get("items"))
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(schema)
    return values, items


class StringBounds:
    """Where a JSON text being written stands: ``room`` is how many more characters the
    open string may take (counted as written, escapes included: never fewer than the
    value's), None when no string is open, it is unbounded, or an escape is half written.
    """

    def __init__(self, values: dict[str, int], items: dict[str, int]) -> None:
        self.values = values
        self.items = items
        self._stack: list[tuple[str, str]] = []  # ("{" or "[", the property it is the value of)
        self._expect_key = False
        self._key = ""  # the property whose value comes next
        self._in_string = False
        self._is_key = False
        self._escape = False
        self._text: list[str] = []  # the open key's characters
        self._written = 0
        self._limit: int | None = None

    def feed(self, text: str) -> None:
        """Follow ``text``, the next characters written."""
        for ch in text:
            if self._in_string:
                self._in_string_char(ch)
            else:
                self._structural_char(ch)

    def _in_string_char(self, ch: str) -> None:
        if self._escape:
            self._escape = False
        elif ch == "\\":
            self._escape = True
        elif ch == '"':
            self._in_string = False
            if self._is_key:
                self._key = "".join(self._text)
            return
        self._written += 1
        if self._is_key:
            self._text.append(ch)

    def _structural_char(self, ch: str) -> None:
        top = self._stack[-1] if self._stack else ("", "")
        if ch in "{[":
            self._stack.append((ch, self._key if top[0] == "{" else top[1]))
            self._expect_key = ch == "{"
        elif ch in "}]":
            if self._stack:
                self._stack.pop()
        elif ch == ",":
            self._expect_key = top[0] == "{"
        elif ch == ":":
            self._expect_key = False
        elif ch == '"':
            self._in_string, self._escape, self._written = True, False, 0
            self._is_key = top[0] == "{" and self._expect_key
            self._text = []
            if self._is_key:
                self._limit = None
            elif top[0] == "[":
                self._limit = self.items.get(top[1])
            else:
                self._limit = self.values.get(self._key)

    def room(self) -> int | None:
        """Characters the open string may still take; None when there is no bound to keep."""
        if not self._in_string or self._escape or self._limit is None:
            return None
        return self._limit - self._written
