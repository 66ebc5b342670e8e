"""Name normalisation: the key under which entity mentions merge exactly."""

from __future__ import annotations

import re
import unicodedata

from graphmind.core.ids import digest

_PUNCT = re.compile(r"[^\w\s]", re.UNICODE)
_KEEP_S = ("ss", "us", "is", "os", "as", "ys")


def normalize_name(name: str) -> str:
    """Case folded; punctuation, a leading article and extra whitespace dropped; a simple
    plural made singular."""
    text = unicodedata.normalize("NFKC", name).casefold()
    text = _PUNCT.sub(" ", text.replace("'s ", " ").replace("\u2019s ", " "))
    words = text.split()
    if len(words) > 1 and words[0] in ("the", "a", "an"):
        words = words[1:]
    if words and len(words[-1]) > 3 and words[-1].endswith("s") and not words[-1].endswith(_KEEP_S):
        last = words[-1]
        words[-1] = last[:-3] + "y" if last.endswith("ies") else last[:-1]
    return " ".join(words)


def normalize_predicate(predicate: str) -> str:
    """Lower-case words separated by single spaces."""
    return " ".join(_PUNCT.sub(" ", predicate.casefold().replace("_", " ")).split())


def entity_id(name: str) -> str:
    """Deterministic id of the entity a name refers to."""
    return digest("entity", normalize_name(name))


def triplet_id(subject: str, predicate: str, obj: str) -> str:
    """Deterministic id of a (subject, predicate, object) fact."""
    return digest(
        "triplet", normalize_name(subject), normalize_predicate(predicate), normalize_name(obj)
    )
