"""Document loaders: directories, .txt, .md, .html, .pdf, .json and .jsonl.

Each loader yields :class:`SourceDocument` objects with a stable ``source`` key (the
file's absolute path, plus ``#key`` for an entry of a JSON corpus), so a re-build
recognises unchanged documents (same id) and changed ones (same source, new id).
Files that cannot be read are reported as :class:`LoadFailure`, never dropped silently.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from graphmind.errors import ConfigError

SUPPORTED = (".txt", ".md", ".markdown", ".html", ".htm", ".pdf", ".json", ".jsonl")


@dataclass(frozen=True)
class SourceDocument:
    """One document as read from the corpus."""

    source: str
    title: str
    text: str

    @property
    def sha256(self) -> str:
        """Hash of the text alone."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    @property
    def id(self) -> str:
        """Deterministic id: hash of source and content."""
        return digest("doc", self.source, self.text)


@dataclass(frozen=True)
class LoadFailure:
    """A file or entry that could not be turned into a document, and why."""

    source: str
    reason: str


@dataclass
class LoadOptions:
    """How to find and read documents."""

    include: Sequence[str] = ()
    exclude: Sequence[str] = ()
    text_field: str = "text"
    title_field: str = "title"


@dataclass
class LoadResult:
    """Documents read, and what could not be read."""

    documents: list[SourceDocument] = field(default_factory=list)
    failures: list[LoadFailure] = field(default_factory=list)


def digest(*parts: str) -> str:
    """A 32-hex-digit id from the parts (sha256, separated so parts cannot run together)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8"))
        h.update(b"\x1f")
    return h.hexdigest()[:32]


def load_paths(paths: Sequence[str | Path], options: LoadOptions | None = None) -> LoadResult:
    """Read every supported file under ``paths`` (recursively, in a stable order)."""
    opts = options or LoadOptions()
    result = LoadResult()
    seen: set[str] = set()
    for raw in paths:
        path = Path(raw).expanduser()
        if not path.exists():
            raise ConfigError(f"no such file or directory: {raw}")
        for file in _files(path, opts):
            key = str(file.resolve())
            if key in seen:
                continue
            seen.add(key)
            try:
                documents = list(load_file(file, opts))
            except (OSError, UnicodeDecodeError, ValueError) as exc:
                result.failures.append(LoadFailure(key, f"{type(exc).__name__}: {exc}"))
                continue
            for doc in documents:
                if doc.text.strip():
                    result.documents.append(doc)
                else:
                    result.failures.append(LoadFailure(doc.source, "no text"))
    return result


def _files(path: Path, opts: LoadOptions) -> Iterator[Path]:
    if path.is_file():
        yield path  # an explicitly named file is read whatever the patterns say
        return
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        rel = file.relative_to(path).as_posix()
        if any(part.startswith(".") for part in file.relative_to(path).parts):
            continue
        if opts.include:
            if not any(
                fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(file.name, pat) for pat in opts.include
            ):
                continue
        elif file.suffix.lower() not in SUPPORTED:
            continue
        if any(
            fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(file.name, pat) for pat in opts.exclude
        ):
            continue
        yield file


def load_file(path: Path, opts: LoadOptions) -> Iterator[SourceDocument]:
    """Documents in one file, chosen by its extension."""
    suffix = path.suffix.lower()
    source = str(path.resolve())
    if suffix in (".json", ".jsonl"):
        yield from _load_json(path, source, opts, lines=suffix == ".jsonl")
    elif suffix in (".html", ".htm"):
        title, text = html_to_text(path.read_text(encoding="utf-8", errors="replace"))
        yield SourceDocument(source, title or path.stem, text)
    elif suffix == ".pdf":
        yield _load_pdf(path, source)
    elif suffix in (".md", ".markdown"):
        text = path.read_text(encoding="utf-8")
        yield SourceDocument(source, _markdown_title(text) or path.stem, text)
    else:
        yield SourceDocument(source, path.stem, path.read_text(encoding="utf-8"))


def _load_json(
    path: Path, source: str, opts: LoadOptions, *, lines: bool
) -> Iterator[SourceDocument]:
    raw = path.read_text(encoding="utf-8")
    if lines:
        records: list[Any] = []
        for number, line in enumerate(raw.splitlines(), 1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"line {number}: {exc.msg}") from exc
    else:
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ValueError(f"invalid JSON at line {exc.lineno}: {exc.msg}") from exc
        records = data if isinstance(data, list) else [data]
    objects = [r for r in records if isinstance(r, dict)]
    if len(objects) != len(records):
        raise ValueError("expected JSON objects (or a list of them)")
    if objects and not any(opts.text_field in r for r in objects):
        raise ValueError(
            f"no record has the text field {opts.text_field!r} "
            f"(fields: {', '.join(sorted(objects[0]))}); set --text-field"
        )
    titles = [str(r.get(opts.title_field) or "") for r in objects]
    unique = len(set(titles)) == len(titles) and all(titles)
    for index, (record, title) in enumerate(zip(objects, titles, strict=True)):
        text = record.get(opts.text_field)
        if not isinstance(text, str):
            text = "" if text is None else json.dumps(text, ensure_ascii=False)
        key = title if unique else str(index)
        body = f"{title}\n{text}" if title and len(objects) > 1 else text
        yield SourceDocument(f"{source}#{key}", title or f"{path.stem} #{index}", body)


def _load_pdf(path: Path, source: str) -> SourceDocument:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(str(path))
        pages = [page.extract_text() or "" for page in reader.pages]
        meta_title = reader.metadata.title if reader.metadata else None
    except PdfReadError as exc:
        raise ValueError(f"unreadable PDF: {exc}") from exc
    return SourceDocument(source, str(meta_title or path.stem), "\n\n".join(pages).strip())


def _markdown_title(text: str) -> str | None:
    for line in text.splitlines():
        if line.startswith("# "):
            return line[2:].strip() or None
    return None


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


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title: list[str] = []
        self._skip = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in _SKIP:
            self._skip += 1
        elif tag in _BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in _SKIP:
            self._skip = max(0, self._skip - 1)
        elif tag in _BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title.append(data)
        elif not self._skip:
            self.parts.append(data)


def html_to_text(html: str) -> tuple[str, str]:
    """(title, visible text) of an HTML page; scripts, styles and markup dropped."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    lines = [" ".join(line.split()) for line in "".join(parser.parts).splitlines()]
    text = "\n\n".join(line for line in lines if line)  # each block is a paragraph
    return " ".join("".join(parser.title).split()), text
