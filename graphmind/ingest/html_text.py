"""The visible text of an HTML page, without its markup, scripts and chrome, and where
its sections (headings) begin."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import NamedTuple

_BLOCK = {
    "p",
    "div",
    "br",
    "li",
    "tr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "section",
    "article",
    "header",
    "footer",
    "blockquote",
    "pre",
    "table",
    "ul",
    "ol",
    "dd",
    "dt",
}
_SKIP = {"script", "style", "noscript", "template", "svg", "head"}
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_MARK = "\ue000"  # a private-use character where a heading begins, taken out at the end


# the page's chrome, by its ARIA landmark role or HTML5 element: navigation, banners,
# footers, search boxes and sidebars repeat on every page of a site and answer nothing
_CHROME_ROLES = {"navigation", "banner", "contentinfo", "search", "complementary"}
_CHROME_TAGS = {"nav", "aside"}
_PAGE_PARTS = {"header", "footer"}  # chrome outside an article or the main content


class _TextExtractor(HTMLParser):
    """The visible text of a page, and apart the text of its main content (``<main>`` or
    ``role="main"``), without its chrome."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.main: list[str] = []
        self.title: list[str] = []
        self._skip = 0
        self._in_title = False
        self._chrome = ""  # the tag of the chrome being skipped ("": none), its nesting
        self._chrome_depth = 0
        self._main = ""  # likewise for the main content
        self._main_depth = 0
        self._content = 0  # inside an article or the main content
        self._pre = 0  # inside preformatted text, whose line breaks are kept

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        role = next((v or "" for k, v in attrs if k == "role"), "").lower()
        if self._chrome:
            self._chrome_depth += tag == self._chrome
            return
        if (
            tag in _CHROME_TAGS
            or role in _CHROME_ROLES
            or (tag in _PAGE_PARTS and not self._content)
        ):
            self._chrome, self._chrome_depth = tag, 1
            return
        if self._main:
            self._main_depth += tag == self._main
        elif tag == "main" or role == "main":
            self._main, self._main_depth = tag, 1
            self._content += 1
        if tag == "article":
            self._content += 1
        self._pre += tag == "pre"
        if tag == "title":
            self._in_title = True
        elif tag in _SKIP:
            self._skip += 1
        elif tag in _BLOCK:
            self._emit("\n")
            if tag in _HEADINGS:
                self._emit(_MARK)

    def handle_endtag(self, tag: str) -> None:
        if self._chrome:
            if tag == self._chrome:
                self._chrome_depth -= 1
                if not self._chrome_depth:
                    self._chrome = ""
            return
        if tag == "pre":
            self._pre = max(0, self._pre - 1)
        if tag == "title":
            self._in_title = False
        elif tag in _SKIP:
            self._skip = max(0, self._skip - 1)
        elif tag in _BLOCK:
            self._emit("\n")
        if tag == "article":
            self._content = max(0, self._content - 1)
        if tag == self._main:
            self._main_depth -= 1
            if not self._main_depth:
                self._main = ""
                self._content = max(0, self._content - 1)

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title.append(data)
        elif not self._skip and not self._chrome:
            # a line break in running text is a space; only blocks (and <pre>) break lines
            data = data.replace(_MARK, "")
            self._emit(data if self._pre else " ".join(data.split("\n")))

    def _emit(self, text: str) -> None:
        self.parts.append(text)
        if self._main:
            self.main.append(text)


class Page(NamedTuple):
    """An HTML page's title, visible text and the offsets in the text where its sections
    (headings) begin."""

    title: str
    text: str
    sections: tuple[int, ...]


def html_page(html: str) -> Page:
    """The title, visible text and section starts of an HTML page; scripts, styles,
    markup and the page's chrome (navigation, banners, footers, sidebars: ARIA landmarks
    and HTML5 elements) dropped; only the main content when the page marks one."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    main = "".join(parser.main)
    kept = main if main.strip() else "".join(parser.parts)
    lines = [" ".join(line.split()).replace(_MARK + " ", _MARK) for line in kept.splitlines()]
    marked = "\n\n".join(line for line in lines if line.replace(_MARK, ""))
    pieces = marked.split(_MARK)
    text, sections, offset = pieces[0], [], len(pieces[0])
    for piece in pieces[1:]:
        sections.append(offset)
        text += piece
        offset += len(piece)
    return Page(" ".join("".join(parser.title).split()), text, tuple(sorted(set(sections))))


def html_to_text(html: str) -> tuple[str, str]:
    """(title, visible text) of an HTML page (see ``html_page``)."""
    page = html_page(html)
    return page.title, page.text
