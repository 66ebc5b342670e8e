"""Named Cypher queries loaded from ``cypher/``.

``cypher/<name>.cypher`` is shared openCypher; ``cypher/<backend>/<name>.cypher``
replaces it on one backend where the dialects really differ. Templates may hold
``{{placeholder}}`` slots, filled only with schema names from
:mod:`graphmind.store.schema`, and the dialect macro ``{{VEC}}`` (``vecf32`` on
FalkorDB, nothing on Neo4j) so one file can store vectors on both.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import Literal

from graphmind.core.errors import QueryNotFoundError, QueryParameterError
from graphmind.store.schema import PLACEHOLDER_DOMAINS

Backend = Literal["neo4j", "falkordb"]
BACKENDS: tuple[Backend, ...] = ("neo4j", "falkordb")

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_PARAMETER = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_COMMENT = re.compile(r"//[^\n]*")
_MACROS: dict[Backend, dict[str, str]] = {
    "neo4j": {"VEC": ""},
    "falkordb": {"VEC": "vecf32"},
}


def default_root() -> Path:
    """The ``cypher/`` folder: inside the installed wheel, or beside the package in a checkout."""
    packaged = Path(str(resources.files("graphmind"))) / "cypher"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "cypher"


class QueryRegistry:
    """Looks up, renders and checks named queries for one backend."""

    def __init__(self, backend: Backend, roots: Sequence[Path] | None = None) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r}")
        self.backend = backend
        self.roots = tuple(roots) if roots else (default_root(),)
        self._paths: dict[str, Path] = {}  # found once: the files ship with the package

    def path(self, name: str) -> Path:
        """The file that defines ``name`` on this backend (override first)."""
        if name in self._paths:
            return self._paths[name]
        tried: list[Path] = []
        for root in self.roots:
            for candidate in (root / self.backend / f"{name}.cypher", root / f"{name}.cypher"):
                if candidate.is_file():
                    self._paths[name] = candidate
                    return candidate
                tried.append(candidate)
        raise QueryNotFoundError(
            f"no query named {name!r} for {self.backend}; looked for "
            + ", ".join(str(p) for p in tried)
        )

    def source(self, name: str) -> str:
        """The raw template text of ``name``."""
        return _read(self.path(name))

    def render(self, name: str, **slots: str) -> str:
        """The query text with its placeholders filled from schema constants."""
        return render_template(self.source(name), self.backend, name, slots)

    def sample(self, name: str) -> str:
        """``name`` rendered with the first allowed value of every placeholder (for linting)."""
        source = self.source(name)
        slots = {
            slot: PLACEHOLDER_DOMAINS[slot][0]
            for slot in _PLACEHOLDER.findall(source)
            if slot in PLACEHOLDER_DOMAINS
        }
        return render_template(source, self.backend, name, slots)

    def names(self) -> list[str]:
        """Every query name this backend can run (shared files and its overrides)."""
        found: set[str] = set()
        for root in self.roots:
            for path in root.rglob("*.cypher"):
                rel = path.relative_to(root)
                if rel.parts[0] in BACKENDS:
                    if rel.parts[0] != self.backend:
                        continue
                    rel = Path(*rel.parts[1:])
                found.add(rel.with_suffix("").as_posix())
        return sorted(found)


def render_template(source: str, backend: Backend, name: str, slots: dict[str, str]) -> str:
    """Fill ``{{slot}}`` placeholders, refusing any value outside the slot's schema domain."""
    for slot, value in slots.items():
        domain = PLACEHOLDER_DOMAINS.get(slot)
        if domain is None:
            raise QueryParameterError(f"query {name!r}: {slot!r} is not a template slot")
        if value not in domain:
            raise QueryParameterError(
                f"query {name!r}: {value!r} is not an allowed {slot} (one of {', '.join(domain)})"
            )
    macros = _MACROS[backend]

    def fill(match: re.Match[str]) -> str:
        key = match.group(1)
        if key in macros:
            return macros[key]
        if key in slots:
            return slots[key]
        raise QueryParameterError(f"query {name!r} needs template slot {{{{{key}}}}}")

    return _PLACEHOLDER.sub(fill, source)


def parameters(text: str) -> set[str]:
    """Names of the ``$parameters`` a query uses (comments ignored)."""
    return set(_parameters(text))


@lru_cache(maxsize=1024)  # GraphMind's own queries are read again and again
def _parameters(text: str) -> frozenset[str]:
    return frozenset(_PARAMETER.findall(_COMMENT.sub("", text)))


def check_names(name: str, given: Iterable[object]) -> None:
    """Refuse a parameter name that is not an identifier (``[A-Za-z_][A-Za-z0-9_]*``): the
    FalkorDB client writes names into the query text, where any other character could
    end the name and start Cypher of the caller's choosing."""
    for key in given:
        if not isinstance(key, str) or not _NAME.fullmatch(key):
            shown = repr(key) if len(repr(key)) <= 60 else repr(key)[:57] + "..."
            raise QueryParameterError(
                f"query {name!r}: parameter name {shown} is not a plain identifier "
                "(letters, digits and _, not starting with a digit)"
            )


def check_parameters(name: str, text: str, given: Iterable[str]) -> None:
    """Fail before the round trip when a parameter name is not an identifier
    (``check_names``) or a parameter the query uses is missing."""
    names = set(given)
    check_names(name, names)
    missing = parameters(text) - names
    if missing:
        raise QueryParameterError(
            f"query {name!r} needs parameter(s) " + ", ".join(f"${p}" for p in sorted(missing))
        )


@cache
def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")
