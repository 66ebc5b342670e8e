"""Document loaders: directories, .txt, .md, .html, .pdf, .json and .jsonl.

Each loader yields :class:`SourceDocument` objects with a stable ``source`` key (the
file's absolute path, plus ``#key`` for an entry of a JSON corpus), so a re-build
recognises unchanged documents (same id) and changed ones (same source, new id).

Bad input never costs the rest of the corpus: a file or entry that cannot be turned
into a document is reported as a :class:`LoadFailure` (with the reason) and the others
are read. Text is decoded the way a user expects: a byte-order mark decides, else UTF-8,
else the encoding ``charset-normalizer`` detects (``LoadOptions.encoding`` overrides);
the BOM is dropped, and NUL and other control characters are removed (no store accepts
them everywhere).
"""

from __future__ import annotations

import codecs
import errno
import fnmatch
import hashlib
import json
import logging
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from graphmind.core.errors import BadInputError, NotFoundError
from graphmind.core.ids import digest

SUPPORTED = (".txt", ".md", ".markdown", ".html", ".htm", ".pdf", ".json", ".jsonl")
LEGACY = "cp1252"  # the encoding preferred when detection finds several equally good
NUL_SHARE = 0.05  # above this share of NUL bytes, UTF-8 is not believed (UTF-16 without BOM)
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
# C0 and C1 control characters (tab and line breaks kept; vertical tab, form feed and
# NEL become line breaks), DEL, and lone surrogates (from JSON escapes; not encodable).
_CLEAN: dict[int, str | None] = {
    **{c: None for c in range(0x20) if chr(c) not in "\t\n\r"},
    0x0B: "\n",
    0x0C: "\n",
    0x7F: None,
    **{c: None for c in range(0x80, 0xA0)},
    0x85: "\n",
    **{c: None for c in range(0xD800, 0xE000)},
}
_NOT_CLEAN = frozenset(_CLEAN)

log = logging.getLogger(__name__)


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
    """A file or entry that could not be turned into a document (or written), and why."""

    source: str
    reason: str


@dataclass
class LoadOptions:
    """How to find and read documents; ``encoding`` overrides detection for every file."""

    include: Sequence[str] = ()
    exclude: Sequence[str] = ()
    text_field: str = "text"
    title_field: str = "title"
    encoding: str | None = None


@dataclass
class LoadResult:
    """Documents read, what could not be read, notes (a guessed encoding, removed
    characters, a PDF's complaints), and the named paths that held no file to read."""

    documents: list[SourceDocument] = field(default_factory=list)
    failures: list[LoadFailure] = field(default_factory=list)
    notes: list[LoadFailure] = field(default_factory=list)
    empty_paths: list[str] = field(default_factory=list)


def check_encoding(name: str) -> str:
    """The codec's canonical name; BadInputError for an unknown encoding."""
    try:
        return codecs.lookup(name).name
    except LookupError:
        raise BadInputError(
            f"unknown encoding {name!r} (e.g. utf-8, latin-1, cp1252, utf-16)"
        ) from None


def load_paths(paths: Sequence[str | Path], options: LoadOptions | None = None) -> LoadResult:
    """Read every supported file under ``paths`` (recursively, in a stable order)."""
    opts = options or LoadOptions()
    if opts.encoding:
        check_encoding(opts.encoding)
    result = LoadResult()
    seen: set[str] = set()
    for raw in paths:
        path = Path(raw).expanduser()
        _check_named(path, str(raw))
        found = False
        for file in _files(path, opts, result):
            found = True
            key = str(file.resolve())
            if key in seen:
                continue
            seen.add(key)
            _load_one(file, opts, result)
        if not found:
            result.empty_paths.append(_nothing_under(path, str(raw), opts))
    return result


def _load_one(file: Path, opts: LoadOptions, result: LoadResult) -> None:
    """Read one file into ``result``: its documents, or why it (or an entry) failed."""
    source = str(file.resolve())
    try:
        items = list(load_file(file, opts))
    except RecursionError:
        result.failures.append(LoadFailure(source, "JSON nested too deeply to read"))
        return
    except (OSError, ValueError) as exc:
        result.failures.append(LoadFailure(source, _reason(exc)))
        return
    for item in items:
        if isinstance(item, LoadFailure):
            (result.notes if item.reason.startswith("note: ") else result.failures).append(
                LoadFailure(item.source, item.reason.removeprefix("note: "))
            )
        elif item.text.strip():
            result.documents.append(item)
        else:
            result.failures.append(LoadFailure(item.source, "no text"))


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"


def _check_named(path: Path, raw: str) -> None:
    """A path named on the command line must exist; say why it does not."""
    try:
        path.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise BadInputError(f"symbolic link loop: {raw}") from None
        if path.is_symlink():
            target = os.readlink(path)
            raise BadInputError(f"broken symbolic link: {raw} -> {target}") from None
        if exc.errno == errno.EACCES:
            raise BadInputError(f"permission denied: {raw}") from None
        raise NotFoundError(f"no such file or directory: {raw}") from None


def _nothing_under(path: Path, raw: str, opts: LoadOptions) -> str:
    if path.is_file():
        return f"{raw} was already named"
    if not path.is_dir():
        return f"{raw} is neither a file nor a folder"
    if opts.include:
        return f"no file under {raw} matches --include {' '.join(opts.include)}"
    if opts.exclude:
        return (
            f"no supported file ({', '.join(SUPPORTED)}) under {raw} "
            f"outside --exclude {' '.join(opts.exclude)}"
        )
    return f"no supported file ({', '.join(SUPPORTED)}) under {raw}"


def _files(path: Path, opts: LoadOptions, result: LoadResult) -> Iterator[Path]:
    if path.is_file():
        yield path  # an explicitly named file is read whatever the patterns say
        return
    if not path.is_dir():
        return
    for file in sorted(path.rglob("*")):
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
        if file.is_file():
            yield file
        elif file.is_symlink():  # a link that leads nowhere: say so, never drop it silently
            result.failures.append(LoadFailure(str(file.absolute()), _link_problem(file)))


def _link_problem(link: Path) -> str:
    try:
        link.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symbolic link loop"
    return f"broken symbolic link (to {os.readlink(link)})"


def load_file(path: Path, opts: LoadOptions) -> Iterator[SourceDocument | LoadFailure]:
    """Documents in one file, chosen by its extension; failed entries of a JSON corpus
    and notes (prefixed ``note: ``) come as :class:`LoadFailure` items."""
    suffix = path.suffix.lower()
    source = str(path.resolve())
    if suffix == ".pdf":
        yield from _load_pdf(path, source)
        return
    text, note = read_text(path.read_bytes(), opts.encoding)
    if note:
        yield LoadFailure(source, f"note: {note}")
    if suffix in (".json", ".jsonl"):
        yield from _load_json(text, path, source, opts, lines=suffix == ".jsonl")
        return
    text, removed = clean_text(text)
    if removed:
        yield LoadFailure(source, f"note: {removed} control character(s) removed")
    if suffix in (".html", ".htm"):
        title, body = html_to_text(text)
        yield SourceDocument(source, title or path.stem, body)
    elif suffix in (".md", ".markdown"):
        yield SourceDocument(source, _markdown_title(text) or path.stem, text)
    else:
        yield SourceDocument(source, path.stem, text)


def read_text(data: bytes, encoding: str | None = None) -> tuple[str, str | None]:
    """Decode a file's bytes: ``encoding`` when given, else by its byte-order mark, else
    UTF-8, else what charset-normalizer detects. Returns the text (BOM dropped) and a note
    when the encoding was guessed; ValueError when no encoding fits (a binary file)."""
    if encoding:
        try:
            return data.decode(encoding).removeprefix("\ufeff"), None
        except UnicodeDecodeError as exc:
            raise ValueError(f"not {encoding}: byte {exc.start} cannot be decoded") from None
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(codec).removeprefix("\ufeff"), None
            except UnicodeDecodeError:
                break  # a BOM-like start that is not one: detect instead
    if data.count(0) <= NUL_SHARE * len(data):
        try:
            return data.decode("utf-8"), None
        except UnicodeDecodeError:
            pass
    from charset_normalizer import from_bytes

    matches = list(from_bytes(data))
    if not matches:
        raise ValueError(
            "not text in any known encoding (a binary file?); name one with --encoding"
        )
    best = matches[0]
    # short texts fit many code pages equally well: among the equally good, prefer the
    # most common legacy one (Windows-1252, a superset of Latin-1's printable characters)
    tied = [
        m
        for m in matches
        if m.percent_chaos == best.percent_chaos and m.percent_coherence == best.percent_coherence
    ]
    name = str(best.encoding)
    if any(LEGACY in m.could_be_from_charset for m in tied):
        name = LEGACY
    try:
        text = data.decode(name)
    except UnicodeDecodeError:
        name, text = str(best.encoding), str(best)
    if codecs.lookup(name).name == "utf-8":  # UTF-8 after all (many NUL bytes hid it)
        return text.removeprefix("\ufeff"), None
    note = f"not UTF-8: read as {name} (detected; --encoding overrides)"
    return text.removeprefix("\ufeff"), note


def clean_text(text: str) -> tuple[str, int]:
    """``text`` without NUL and other control characters (vertical tab, form feed and
    NEL become line breaks) and lone surrogates; returns it and how many were changed."""
    if _NOT_CLEAN.isdisjoint(map(ord, set(text))):
        return text, 0
    found = {ch for ch in set(text) if ord(ch) in _NOT_CLEAN}
    return text.translate(_CLEAN), sum(text.count(ch) for ch in found)


def _load_json(
    raw: str, path: Path, source: str, opts: LoadOptions, *, lines: bool
) -> Iterator[SourceDocument | LoadFailure]:
    """Records of a JSON list (or one object) or of a JSONL file. A bad line, a record
    that is not an object or has no text is reported and skipped; the others are read."""
    records: list[tuple[str, Any]] = []  # (where, record or a LoadFailure)
    if lines:
        for number, line in enumerate(raw.splitlines(), 1):
            if not line.strip():
                continue
            try:
                records.append((f"line {number}", json.loads(line)))
            except json.JSONDecodeError as exc:
                reason = f"line {number} skipped: invalid JSON ({exc.msg}, column {exc.colno})"
                records.append((f"line {number}", LoadFailure(f"{source}:{number}", reason)))
            except RecursionError:
                reason = f"line {number} skipped: JSON nested too deeply"
                records.append((f"line {number}", LoadFailure(f"{source}:{number}", reason)))
    else:
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
            ) from None
        items = data if isinstance(data, list) else [data]
        records = [(f"record {i}", r) for i, r in enumerate(items)]
    objects = [r for _, r in records if isinstance(r, dict)]
    if objects and not any(opts.text_field in r for r in objects):
        raise ValueError(
            f"no record has the text field {opts.text_field!r} "
            f"(fields: {', '.join(sorted(map(str, objects[0])))}); set --text-field"
        )
    if not objects and not any(isinstance(r, LoadFailure) for _, r in records):
        raise ValueError("expected JSON objects (or a list of them), found none")
    titles = [
        clean_text(_title_of(r, opts.title_field))[0] if isinstance(r, dict) else ""
        for _, r in records
    ]
    named = [t for t, (_, r) in zip(titles, records, strict=True) if isinstance(r, dict)]
    unique = len(set(named)) == len(named) and all(named)
    for index, ((where, record), title) in enumerate(zip(records, titles, strict=True)):
        if isinstance(record, LoadFailure):
            yield record
            continue
        key = title if unique else str(index)
        if not isinstance(record, dict):
            kind = _json_kind(record)
            yield LoadFailure(f"{source}#{key}", f"{where} skipped: {kind}, not an object")
            continue
        text, problem = _text_of(record, opts.text_field)
        if problem:
            yield LoadFailure(f"{source}#{key}", f"{where} has no text: {problem}")
            continue
        text, removed = clean_text(text)
        if removed:
            yield LoadFailure(f"{source}#{key}", f"note: {removed} control character(s) removed")
        body = f"{title}\n{text}" if title and len(records) > 1 else text
        yield SourceDocument(f"{source}#{key}", title or f"{path.stem} #{index}", body)


def _title_of(record: dict[str, Any], field: str) -> str:
    value = record.get(field)
    return value if isinstance(value, str) else "" if value is None else str(value)


def _text_of(record: dict[str, Any], field: str) -> tuple[str, str | None]:
    """The record's text, or why it has none."""
    if field not in record:
        return "", f"no field {field!r}"
    value = record[field]
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        value = " ".join(value)  # a list of sentences
    if value is None:
        return "", f"field {field!r} is null"
    if not isinstance(value, str):
        return "", f"field {field!r} is {_json_kind(value)}, not text"
    if not value.strip():
        return "", f"field {field!r} is empty"
    return value, None


def _json_kind(value: Any) -> str:
    """What a JSON value is, in JSON's words."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


def _load_pdf(path: Path, source: str) -> Iterator[SourceDocument | LoadFailure]:
    """A PDF's text; pypdf's complaints go to logging and become one note, not noise."""
    from pypdf import PdfReader

    complaints = _Collect()
    pypdf_log = logging.getLogger("pypdf")
    pypdf_log.addHandler(complaints)
    try:
        reader = PdfReader(str(path))
        pages = [page.extract_text() or "" for page in reader.pages]
        meta_title = reader.metadata.title if reader.metadata else None
    except Exception as exc:  # a parser of untrusted input fails in many ways: all are "unreadable"
        raise ValueError(f"unreadable PDF: {type(exc).__name__}: {exc}") from None
    finally:
        pypdf_log.removeHandler(complaints)
    if complaints.messages:
        first = complaints.messages[0]
        yield LoadFailure(
            source, f"note: pypdf reported {len(complaints.messages)} problem(s), first: {first}"
        )
    text, _ = clean_text("\n\n".join(pages).strip())
    title, _ = clean_text(str(meta_title or path.stem))
    yield SourceDocument(source, title, text)


class _Collect(logging.Handler):
    """Keeps pypdf's warnings (and logs them at debug level) instead of printing them."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())
        log.debug("pypdf: %s", record.getMessage())


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
            self._emit(data if self._pre else " ".join(data.split("\n")))

    def _emit(self, text: str) -> None:
        self.parts.append(text)
        if self._main:
            self.main.append(text)


def html_to_text(html: str) -> tuple[str, str]:
    """(title, visible text) of an HTML page; scripts, styles, markup and the page's
    chrome (navigation, banners, footers, sidebars: ARIA landmarks and HTML5 elements)
    dropped; only the main content when the page marks one."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    main = "".join(parser.main)
    kept = main if main.strip() else "".join(parser.parts)
    lines = [" ".join(line.split()) for line in kept.splitlines()]
    text = "\n\n".join(line for line in lines if line)  # each block is a paragraph
    return " ".join("".join(parser.title).split()), text
