"""Sentence splitting, shared by chunking, heuristic extraction and conversation episodes;
the characters-per-token estimate that prompt budgets use."""

from __future__ import annotations

import re

CHARS_PER_TOKEN = 4  # a token budget in characters, for English text (no tokenizer needed)

_PARAGRAPH = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"[.!?…][\"')\]]*(?=\s+[\"'(\[]?[A-Z0-9À-ÖØ-Þ])")
_ABBREVIATION = re.compile(
    r"(?:\b(?:Mr|Mrs|Ms|Dr|Prof|St|Jr|Sr|Mt|No|vs|etc|e\.g|i\.e|Inc|Ltd|Co|Gen|Col|Lt|Sgt|Rev)"
    r"|(?:^|\s)[A-Z])\.$"
)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence; paragraph breaks always end one, "Dr." or "J." do not."""
    spans: list[tuple[int, int]] = []
    offset = 0
    for paragraph in [*_PARAGRAPH.split(text)]:
        base = text.index(paragraph, offset) if paragraph else offset
        offset = base + len(paragraph)
        start = 0
        for match in _SENTENCE_END.finditer(paragraph):
            piece = paragraph[start : match.end()]
            if piece.strip() and not _ABBREVIATION.search(piece.strip()):
                spans.append(_strip_span(paragraph, base, start, match.end()))
                start = match.end()
        if paragraph[start:].strip():
            spans.append(_strip_span(paragraph, base, start, len(paragraph)))
    return spans


def _strip_span(paragraph: str, base: int, start: int, end: int) -> tuple[int, int]:
    piece = paragraph[start:end]
    lead = len(piece) - len(piece.lstrip())
    trail = len(piece) - len(piece.rstrip())
    return base + start + lead, base + end - trail


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``."""
    return [text[a:b] for a, b in sentence_spans(text)]


def whole_sentences(text: str, limit: int) -> str:
    """``text`` with no sentence cut short: a text that reaches ``limit`` characters (its
    writer was stopped there) loses its unfinished last sentence, or, when that is its
    only one, is cut at a word and ends with "…"."""
    if len(text) < limit:
        return text
    cut = text[:limit].rstrip()
    if cut.endswith((".", "!", "?", "…")):
        return cut
    spans = sentence_spans(cut)
    if len(spans) > 1:
        return cut[: spans[-2][1]]
    return cut[: limit - 1].rsplit(" ", 1)[0] + "…"
