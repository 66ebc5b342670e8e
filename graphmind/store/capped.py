"""A read cut at N rows by the server, for a store without a cursor (FalkorDB sends a
result whole): the query runs as a ``CALL {}`` subquery under ``RETURN ... LIMIT N``,
its columns named in their own order (``RETURN *`` would sort them)."""

from __future__ import annotations

import re

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CLAUSE_END = {"ORDER", "SKIP", "LIMIT", "UNION"}
_SKIP_PREFIX = "UNWIND [0] AS __graphmind_cap\n"


def capped_query(text: str, rows: int) -> str:
    """``text`` run so that the server produces at most ``rows`` rows."""
    body = text.strip().removesuffix(";").strip()
    plain = _blank_comments(body)
    words = _top_level_words(plain)
    if not any(word == "RETURN" for _, word in words):
        return body  # no rows to cut (a write, refused read-only, or a bare procedure call)
    # a leading WITH would import into the subquery (refused unless plain names)
    prefix = _SKIP_PREFIX if words and words[0][1] == "WITH" else ""
    columns = _return_columns(plain, words)
    shown = ", ".join("`" + c.replace("`", "``") + "`" for c in columns) if columns else "*"
    return f"CALL {{\n{prefix}{body}\n}}\nRETURN {shown} LIMIT {int(rows)}"


def _blank_comments(text: str) -> str:
    """``text`` with its comments replaced by spaces (strings and names kept)."""
    out, i, n = list(text), 0, len(text)
    while i < n:
        if text[i] in "'\"`":
            i = _closing(text, i)
            continue
        end = i
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
        if end > i:
            out[i:end] = " " * (end - i)
            i = end
        else:
            i += 1
    return "".join(out)


def _top_level_words(text: str) -> list[tuple[int, str]]:
    """(position, upper-case word) of each word outside strings and brackets (``text``
    holds no comments)."""
    out: list[tuple[int, str]] = []
    depth, i, n = 0, 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "'\"`":
            i = _closing(text, i)
        elif ch in "([{":
            depth, i = depth + 1, i + 1
        elif ch in ")]}":
            depth, i = depth - 1, i + 1
        elif ch.isalpha() or ch == "_":
            match = _WORD.match(text, i)
            assert match is not None
            if depth == 0:
                out.append((i, match.group().upper()))
            i = match.end()
        else:
            i += 1
    return out


def _closing(text: str, start: int) -> int:
    """The index after the string or quoted name opened at ``start``."""
    quote, i = text[start], start + 1
    while i < len(text):
        if text[i] == "\\" and quote != "`":
            i += 2
        elif text[i] == quote:
            return i + 1
        else:
            i += 1
    return len(text)


def _return_columns(text: str, words: list[tuple[int, str]]) -> list[str] | None:
    """The column names of the last top-level RETURN, or None when they cannot be told
    (``RETURN *``, an item without ``AS`` that is not a plain name)."""
    returns = [k for k, (_, w) in enumerate(words) if w == "RETURN"]
    if not returns:
        return None
    k = returns[-1]
    start = words[k][0] + len("RETURN")
    end = next((pos for pos, w in words[k + 1 :] if w in _CLAUSE_END), len(text))
    items = _split_items(text[start:end])
    if items and items[0].upper().startswith("DISTINCT "):
        items[0] = items[0][len("DISTINCT ") :].strip()
    columns = []
    for item in items:
        alias = re.search(r"\s+AS\s+(`(?:[^`]|``)+`|[A-Za-z_][A-Za-z0-9_]*)\s*$", item, re.I)
        if alias:
            name = alias.group(1)
            columns.append(name[1:-1].replace("``", "`") if name.startswith("`") else name)
        elif _WORD.fullmatch(item):
            columns.append(item)
        else:
            return None
    return columns or None


def _split_items(text: str) -> list[str]:
    """``text`` split at commas outside strings and brackets, each item stripped."""
    items, depth, last, i = [], 0, 0, 0
    while i < len(text):
        ch = text[i]
        if ch in "'\"`":
            i = _closing(text, i)
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[last:i].strip())
            last = i + 1
        i += 1
    items.append(text[last:].strip())
    return [item for item in items if item]
