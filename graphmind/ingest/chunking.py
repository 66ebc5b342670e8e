"""Token-based chunking on sentence boundaries, with overlap, that starts a new chunk
where a section of the document begins (a heading of an HTML or Markdown page).

Tokens are counted with a simple, deterministic word/punctuation tokenizer (no
model download); it tracks sub-word tokenizers closely enough for sizing chunks. A word
longer than ``MAX_WORD`` characters counts as one token per ``MAX_WORD`` characters (a
sub-word tokenizer splits it too), so a giant "word" (base64, a run of letters without
spaces) is cut into chunks of the usual size instead of becoming one huge chunk.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from graphmind.core.ids import digest
from graphmind.core.text import sentence_spans

MAX_WORD = 16
MIN_CHUNK_TOKENS = 8  # a smaller chunk holds no sentence worth retrieving
# a section starts a new chunk once the chunk before holds this share of the size; a
# shorter section (a heading and a line or two) joins the next one instead
SECTION_SHARE = 0.25
_TOKEN = re.compile(rf"\w{{1,{MAX_WORD}}}|[^\w\s]", re.UNICODE)


@dataclass(frozen=True)
class Chunk:
    """A piece of one document."""

    id: str
    document_id: str
    position: int
    text: str
    tokens: int


def count_tokens(text: str) -> int:
    """Number of word and punctuation tokens."""
    return len(_TOKEN.findall(text))


def _split_long(text: str, span: tuple[int, int], size: int) -> list[tuple[int, int]]:
    """A sentence longer than ``size`` tokens, cut into windows of whole tokens."""
    tokens = [m.span() for m in _TOKEN.finditer(text, span[0], span[1])]
    return [
        (tokens[i][0], tokens[min(i + size, len(tokens)) - 1][1])
        for i in range(0, len(tokens), size)
    ]


def _begins_section(starts: list[int], after: int, end: int) -> bool:
    """Whether a section begins between the end of the last unit (``after``) and the end
    of this one."""
    i = bisect.bisect_left(starts, after)
    return i < len(starts) and starts[i] < end


def chunk_text(
    document_id: str,
    text: str,
    size: int = 512,
    overlap: int = 64,
    sections: Sequence[int] = (),
) -> list[Chunk]:
    """Pack sentences into chunks of at most ``size`` tokens; consecutive chunks share
    up to ``overlap`` tokens of whole sentences. A chunk's text is the original slice,
    line breaks included. ``sections``: the offsets in ``text`` where a section (its
    heading) begins; a section starts a new chunk, with no overlap carried into it,
    once the chunk before holds ``SECTION_SHARE`` of ``size``, so a passage is about
    one section rather than the end of one and the start of the next."""
    if size < MIN_CHUNK_TOKENS:
        raise ValueError(f"chunk size must be at least {MIN_CHUNK_TOKENS} tokens")
    if not 0 <= overlap < size:
        raise ValueError("overlap must be between 0 and the chunk size")
    units: list[tuple[tuple[int, int], int]] = []
    for span in sentence_spans(text):
        n = count_tokens(text[span[0] : span[1]])
        if n > size:
            units.extend(
                (piece, count_tokens(text[piece[0] : piece[1]]))
                for piece in _split_long(text, span, size)
            )
        elif n:
            units.append((span, n))
    groups: list[list[tuple[tuple[int, int], int]]] = []
    current: list[tuple[tuple[int, int], int]] = []
    current_tokens = 0
    fresh = False  # whether ``current`` holds anything beyond the overlap carried over
    starts = sorted(sections)
    for unit in units:
        if (
            fresh
            and current_tokens >= SECTION_SHARE * size
            and _begins_section(starts, current[-1][0][1], unit[0][1])
        ):
            groups.append(current)
            current, current_tokens, fresh = [], 0, False
        if current and current_tokens + unit[1] > size:
            groups.append(current)
            carried: list[tuple[tuple[int, int], int]] = []
            carried_tokens = 0
            for previous in reversed(current):
                total = carried_tokens + previous[1]
                if total > overlap or total + unit[1] > size:
                    break
                carried.insert(0, previous)
                carried_tokens = total
            current, current_tokens, fresh = carried, carried_tokens, False
        current.append(unit)
        current_tokens += unit[1]
        fresh = True
    if current and fresh:
        groups.append(current)
    return [
        Chunk(
            id=digest("chunk", document_id, str(position)),
            document_id=document_id,
            position=position,
            text=text[group[0][0][0] : group[-1][0][1]],
            tokens=sum(n for _, n in group),
        )
        for position, group in enumerate(groups)
    ]
