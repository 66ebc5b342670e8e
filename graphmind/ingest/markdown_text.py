"""The structure of a Markdown page: its title and where its sections begin."""

from __future__ import annotations

import re

_ATX_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def markdown_sections(text: str) -> tuple[int, ...]:
    """The offsets of a Markdown text's ATX headings ("## Title"), those inside fenced
    code ("# a comment" in a ``` block) left out."""
    starts: list[int] = []
    fence = ""
    offset = 0
    for line in text.splitlines(keepends=True):
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
        elif opened:
            fence = opened.group(1)
        elif _ATX_HEADING.match(line):
            starts.append(offset + len(line) - len(line.lstrip(" ")))
        offset += len(line)
    return tuple(starts)


def markdown_title(text: str) -> str | None:
    """The text of the page's first "# " heading, if it has one."""
    for line in text.splitlines():
        if line.startswith("# "):
            return line[2:].strip() or None
    return None
