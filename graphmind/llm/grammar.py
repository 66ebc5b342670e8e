"""Values a string field must not take, as a JSON schema says them and as a GBNF grammar
enforces them.

A caller that must not get a value back ("Arnold Schwarzenegger" to "Who married Arnold
Schwarzenegger?") puts ``{"not": {"enum": [...]}}`` on the string property. A provider
that constrains decoding by grammar (llama.cpp) turns it into rules that admit every
string except those values, compared case-insensitively; others leave it out of what
they send. The caller still checks the value it gets: an exclusion narrows the model's
choice, it is not validated.
"""

from __future__ import annotations

import copy
import re
from typing import Any

_END = ""
_QUOTE_BACKSLASH = '"\\'



def excluded_values(schema: dict[str, Any]) -> dict[str, list[str]]:
    """The values each top-level string property must not take (``not: {enum}``)."""
    found: dict[str, list[str]] = {}
    for name, prop in (schema.get("properties") or {}).items():
        values = ((prop or {}).get("not") or {}).get("enum") or []
        kept = [v for v in values if isinstance(v, str) and v and _plain(v)]
        if kept and prop.get("type") == "string":
            found[name] = kept
    return found


def without_exclusions(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with its properties' ``not`` left out (for backends that cannot
    enforce it, and for the schema shown to the model)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not any(
        isinstance(p, dict) and "not" in p for p in properties.values()
    ):
        return schema
    out = copy.copy(schema)
    out["properties"] = {
        name: {k: v for k, v in p.items() if k != "not"} if isinstance(p, dict) else p
        for name, p in properties.items()
    }
    return out


def with_exclusions(schema: dict[str, Any], avoid: dict[str, list[str]]) -> dict[str, Any]:
    """``schema`` with ``not: {enum}`` on the named string properties."""
    if not any(avoid.values()):
        return schema
    out = copy.deepcopy(schema)
    for name, values in avoid.items():
        prop = out.get("properties", {}).get(name)
        if values and isinstance(prop, dict):
            prop["not"] = {"enum": list(dict.fromkeys(values))}
    return out


def _plain(value: str) -> bool:
    """A value the grammar can spell (no quote, backslash or control character)."""
    return not any(ch in '"\\' or ord(ch) < 0x20 for ch in value)


def _cls(chars: set[str], negate: bool = False) -> str:
    """A GBNF character class of ``chars`` (escaped, runs of code points as ranges)."""
    points = sorted(ord(c) for c in chars)
    runs: list[tuple[int, int]] = []
    for p in points:
        if runs and p == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], p)
        else:
            runs.append((p, p))
    body = "".join(_esc(a) if a == b else f"{_esc(a)}-{_esc(b)}" for a, b in runs)
    return f"[{'^' if negate else ''}{body}]"


def _esc(point: int) -> str:
    return f"\\U{point:08X}" if point > 0xFFFF else f"\\u{point:04X}"


def _cases(ch: str) -> set[str]:
    return {c for c in (ch, ch.lower(), ch.upper()) if len(c) == 1}


def exclusion_rules(rule: str, values: list[str]) -> list[str]:
    """GBNF rules where ``rule`` matches a JSON string (and the space after it) that is
    none of ``values`` by its letters and digits, ignoring case and everything else
    ("maria shriver." is "Maria Shriver"): a trie of the values' letters and digits,
    where each node may skip other characters, close the string (unless a value ends
    there), go on with a letter or digit that leaves every value behind, or follow the
    trie."""
    trie: dict[str, Any] = {}
    letters: set[str] = set("0123456789abcdefghijklmnopqrstuvwxyz")
    for value in values:
        node = trie
        for ch in value.lower():
            if ch.isalnum():
                letters |= _cases(ch)
                node = node.setdefault(ch, {})
        node[_END] = {}
    letters |= {c.upper() for c in letters if len(c.upper()) == 1}
    rest = 'char* "\\"" space'
    escape = '"\\\\" (["\\\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F])'
    rules = [
        f'{rule} ::= "\\"" {rule}-0',
        f"{rule}-skip ::= {_cls(letters | set(_QUOTE_BACKSLASH), negate=True)}",
    ]
    count = 0
    pending: list[tuple[str, dict[str, Any]]] = [(f"{rule}-0", trie)]
    while pending:
        name, node = pending.pop()
        following = [ch for ch in node if ch != _END]
        leaving = letters - set().union(*(_cases(ch) for ch in following))
        alts = [f"{_cls(leaving)} {rest}", f"{escape} {rest}"]
        if _END not in node:
            alts.insert(0, '"\\"" space')
        for ch in following:
            count += 1
            child = f"{rule}-{count}"
            alts.append(f"{_cls(_cases(ch))} {child}")
            pending.append((child, node[ch]))
        rules.append(f"{name} ::= {rule}-skip* ({' | '.join(alts)})")
    return rules


def exclusion_grammar(gbnf: str, excluded: dict[str, list[str]]) -> str | None:
    """``gbnf`` (llama.cpp's grammar of the schema without exclusions) with each excluded
    property's value rule replaced by one that admits none of its values; None when a
    property's rule is not where llama.cpp's converter puts it."""
    text = gbnf
    for name, values in excluded.items():
        rule = f"{_rule_name(name)}-kv"
        pattern = re.compile(rf"^({re.escape(rule)} ::= .*space \":\" space )string$", re.MULTILINE)
        found = pattern.search(text)
        if found is None:
            return None
        value_rule = f"{_rule_name(name)}-not"
        text = text[: found.start()] + found.group(1) + value_rule + text[found.end() :]
        text = text.rstrip("\n") + "\n" + "\n".join(exclusion_rules(value_rule, values)) + "\n"
    return text


def _rule_name(name: str) -> str:
    """The converter's rule name for a property (runs of other characters become '-')."""
    return re.sub(r"[^a-zA-Z0-9-]+", "-", name)
