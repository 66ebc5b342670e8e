"""Document loaders: directories, .txt, .md, .html, .pdf, .json and .jsonl.

Each loader yields :class:`SourceDocument` objects with a stable ``source`` key (the
file's absolute path, plus ``#key`` for an entry of a JSON corpus), so a re-build
recognises unchanged documents (same id) and changed ones (same source, new id).

Bad input never costs the rest of the corpus: a file or entry that cannot be turned
into a document is reported as a :class:`LoadFailure` (with the reason) and the others
are read. Text is decoded as ``decoding`` says (``LoadOptions.encoding`` overrides), and
an HTML page's visible text is read by ``html_text``.
"""

from __future__ import annotations

import errno
import fnmatch
import hashlib
import json
import logging
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from graphmind.core.errors import BadInputError, NotFoundError
from graphmind.core.ids import digest
from graphmind.ingest.decoding import check_encoding, clean_text, read_text
from graphmind.ingest.html_text import html_page
from graphmind.ingest.markdown_text import markdown_sections, markdown_title

SUPPORTED = (".txt", ".md", ".markdown", ".html", ".htm", ".pdf", ".json", ".jsonl")

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SourceDocument:
    """One document as read from the corpus; ``sections``: the offsets in its text where
    a section (a heading) begins, where chunks start anew."""

    source: str
    title: str
    text: str
    sections: tuple[int, ...] = ()

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
    result.documents = without_site_name(result.documents)
    return result


# between a page's own title and its site's name: "Programming FAQ — Python 3.11 docs"
_TITLE_SEPARATORS = (" \u2014 ", " \u2013 ", " | ", " - ", " :: ")
SITE_SHARE = 0.5  # a suffix is the site's name when this share of the pages end with it
SITE_PAGES = 3  # ... and at least this many


def without_site_name(documents: list[SourceDocument]) -> list[SourceDocument]:
    """The documents with the name their site appends to every HTML page's title left
    out ("Programming FAQ — Python 3.11.2 documentation" -> "Programming FAQ"): it tells
    one page from another nothing, costs every prompt a few tokens per passage, and a
    small model answered it ("Python 3.11.2 documentation") to questions about the
    manual. A suffix counts as the site's name when most of the build's HTML pages, and
    at least three, end with it after the same separator."""
    pages = [d for d in documents if d.source.lower().endswith((".html", ".htm"))]
    ends: dict[str, int] = {}
    for d in pages:
        for sep in _TITLE_SEPARATORS:
            if sep in d.title:
                end = sep + d.title.rsplit(sep, 1)[1]
                ends[end] = ends.get(end, 0) + 1
    site = [e for e, n in ends.items() if n >= max(SITE_PAGES, SITE_SHARE * len(pages))]
    if not site:
        return documents
    end = max(site, key=lambda e: (ends[e], len(e)))
    html = {id(d) for d in pages}
    return [
        replace(d, title=d.title.removesuffix(end))
        if id(d) in html and d.title.endswith(end) and d.title != end
        else d
        for d in documents
    ]


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
        page = html_page(text)
        yield SourceDocument(source, page.title or path.stem, page.text, page.sections)
    elif suffix in (".md", ".markdown"):
        title = markdown_title(text) or path.stem
        yield SourceDocument(source, title, text, markdown_sections(text))
    else:
        yield SourceDocument(source, path.stem, text)


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
