"""Stop a local model that has begun to repeat itself.

A small model asked for a JSON list sometimes writes the same item again and again
until the token cap: the offline 0.5B did so on 2 of its first 14 triplet extractions
of 2Wiki passages, spending 1,024 tokens (about 70 s on 2 cores) where about 150
answer. Nothing after the third copy of an item is new, so generation stops there and
the text so far (cut before that copy) is parsed like any cut-off answer.
"""

from __future__ import annotations

import re

# an object with no object inside it, in a list (after "[" or ","): one list item
_FLAT_ITEM = re.compile(r"(?<=[\[,])\s*(\{[^{}]*\})")
_LAST_FLAT_ITEM = re.compile(r"(?<=[\[,])\s*(\{[^{}]*\})$")
# a copy seen this many times is a loop (two copies may be the model's slip)
COPIES_TO_STOP = 3


def repeated_tail(text: str, copies: int = COPIES_TO_STOP) -> str | None:
    """``text`` cut before its last list item when that item (a JSON object with no
    object inside, its runs of whitespace made one space) was already written ``copies -
    1`` times; else None. What follows the item's closing brace (``, {`` in one token)
    is ignored."""
    end = text.rfind("}")
    if end < 0:
        return None
    match = _LAST_FLAT_ITEM.search(text, 0, end + 1)
    if match is None:
        return None
    item = _squeeze(match.group(1))
    before = text[: match.start()]
    seen = sum(1 for m in _FLAT_ITEM.finditer(before) if _squeeze(m.group(1)) == item)
    if seen + 1 < copies:
        return None
    return before.rstrip().rstrip(",").rstrip()


def _squeeze(item: str) -> str:
    return re.sub(r"\s+", " ", item)
