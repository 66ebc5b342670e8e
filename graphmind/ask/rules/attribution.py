"""Attribution: which of the passages shown states a sentence of the full answer.

A small model cites by number and gets the numbers wrong (a sentence copied from passage
3 cites passage 1), cites four passages where one states the sentence, packs several
sentences into one "sentence", and opens with "The passage states that". So every sentence
it writes is split into real sentences, the narration is dropped, and each is tied to the
fewest passages that state its content words: the ones it cited when they do, else the
shown passages that do; a sentence no shown passage states is left out."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from graphmind.ask.rules.text import GROUNDED, content_stems
from graphmind.core.text import split_sentences

MIN_WORDS = 3  # content words below which a sentence is too short to attribute by words
GAIN = 0.2  # share of a sentence's words a further passage must add to be cited too
MAX_SOURCES = 3  # passages one sentence cites
# "The passage states that X": the reader never saw the passage; the sentence is "X"
_NARRATED = re.compile(
    r"^(?:the|these|this|both)\s+(?:passages?|texts?|documents?|sources?|context)\s+"
    r"(?:\[[\d,\s]+\]\s+)?(?:states?|says?|mentions?|explains?|notes?|describes?|"
    r"indicates?|shows?|suggests?)\s+(?:that\s+)?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Attributed:
    """One sentence and the numbers (1-based) of the passages that state it."""

    text: str
    citations: list[int]


def attribute(text: str, cited: Sequence[int], passages: Sequence[str]) -> list[Attributed]:
    """The real sentences of ``text`` (which cited ``cited``, 1-based numbers of
    ``passages``), each with the passages that state at least ``GROUNDED`` of its content
    words between them: its own citations when they do, else the shown passages that do.
    A sentence that no passage states is left out; one with fewer than ``MIN_WORDS``
    content words keeps the citations it was given."""
    known = [n for n in cited if 1 <= n <= len(passages)]
    stems = [content_stems(p) for p in passages]
    out = []
    for said in split_sentences(text):
        sentence = unnarrated(said)
        words = content_stems(sentence)
        if len(words) < MIN_WORDS:
            if known:
                out.append(Attributed(sentence, known))
            continue
        own, share = cover(words, {n: stems[n - 1] for n in known})
        if share < GROUNDED:
            own, share = cover(words, {n: stems[n - 1] for n in range(1, len(passages) + 1)})
        if share >= GROUNDED:
            out.append(Attributed(sentence, own))
    return out


def unnarrated(sentence: str) -> str:
    """The sentence without a leading "The passage states that" (its first letter made
    upper case), or as it is."""
    rest = _NARRATED.sub("", sentence, count=1)
    return rest[:1].upper() + rest[1:] if rest != sentence and rest else sentence


def cover(words: set[str], passages: dict[int, set[str]]) -> tuple[list[int], float]:
    """The passages (numbers) that state the most of ``words`` between them, taken
    greedily while each adds at least ``GAIN`` of them (the lowest number first on a tie),
    and the share of ``words`` they state."""
    chosen: list[int] = []
    stated: set[str] = set()
    while len(chosen) < MAX_SOURCES:
        gains = {n: len((s & words) - stated) for n, s in passages.items() if n not in chosen}
        best = min(gains, key=lambda n: (-gains[n], n), default=None)
        if best is None or gains[best] < max(1, GAIN * len(words)):
            break
        chosen.append(best)
        stated |= passages[best] & words
    return chosen, len(stated) / len(words) if words else 0.0
