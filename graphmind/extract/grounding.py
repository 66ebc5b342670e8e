"""Keep only the names a passage holds.

The extraction prompt says "use only what the passage says"; a small model does not
always obey. The offline 0.5B copied its prompt's example facts ("won Nobel Prize in
Physics", "born in Warsaw") into 17 of its first 24 2Wiki passages ("Free Guy born in
Warsaw"): 23 of their 58 relations, and nothing else was left out. A name is kept when at
least half of its words are the passage's (a shortened, reordered or plural name still
is); a relation is kept when both its ends are, and its date when the passage holds it.
"""

from __future__ import annotations

import re
import unicodedata

from graphmind.extract.models import Extraction

_WORD = re.compile(r"\w+", re.UNICODE)
_FILLER = frozenset({"the", "a", "an", "of", "and", "in", "on", "at", "to", "for", "s"})
MIN_SHARE = 0.5


def words(text: str) -> set[str]:
    """The passage's words, case folded, each also without a final "s"."""
    found = set(_WORD.findall(unicodedata.normalize("NFKC", text).casefold()))
    return found | {w[:-1] for w in found if len(w) > 3 and w.endswith("s")}


def holds(passage: set[str], name: str) -> bool:
    """Whether at least half of ``name``'s words (fillers aside) are the passage's."""
    named: list[str] = _WORD.findall(unicodedata.normalize("NFKC", name).casefold())
    content = [w for w in named if w not in _FILLER] or named
    if not content:
        return True
    found = sum(1 for w in content if w in passage or (w.endswith("s") and w[:-1] in passage))
    return bool(found >= MIN_SHARE * len(content))


def ground(extraction: Extraction, passage: str) -> Extraction:
    """``extraction`` without the entities and relations ``passage`` does not name, and
    without dates it does not hold."""
    known = words(passage)
    entities = [e for e in extraction.entities if holds(known, e.name)]
    relations = []
    for r in extraction.relations:
        if not (holds(known, r.subject) and holds(known, r.object)):
            continue
        if r.event_time is not None and not holds(known, r.event_time):
            r = r.model_copy(update={"event_time": None})
        relations.append(r)
    return Extraction(entities=entities, relations=relations)
