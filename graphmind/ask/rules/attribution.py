"""Attribution: which of the passages shown states a sentence of the full answer.

A small model cites by number and gets the numbers wrong (a sentence copied from passage
3 cites passage 1), cites four passages where one states the sentence, packs several
sentences into one "sentence", and opens with "The passage states that". So every sentence
it writes is split into real sentences, the narration is dropped, and each is tied to the
fewest passages that state its content words: the ones it cited when they do about as
well as any, else the shown passages that state the most; a sentence no shown passage
states is left out."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from graphmind.ask.rules.text import GROUNDED, content_stems
from graphmind.core.text import split_sentences

MIN_WORDS = 3  # content words below which a sentence is too short to attribute by words
MARGIN = 0.1  # its own citations stand unless shown passages state this much more of it
GAIN = 0.2  # share of a sentence's words a further passage must add to be cited too
ADDED = 2  # and at least this many of them (one shared word is no evidence)
MAX_SOURCES = 3  # passages one sentence cites
# "The passage states that X": the reader never saw the passage; the sentence is "X"
# "The full answer is that X" (the prompt's own words): also "X"
_NARRATED = re.compile(
    r"^(?:(?:the|these|this|both)\s+(?:passages?|texts?|documents?|sources?|context)\s+"
    r"(?:\[[\d,\s]+\]\s+)?(?:states?|says?|mentions?|explains?|notes?|describes?|"
    r"indicates?|shows?|suggests?)\s+(?:that\s+)?"
    r"|the\s+(?:full\s+|short\s+)?answer\s+is\s+that\s+)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Attributed:
    """One sentence and the numbers (1-based) of the passages that state it."""

    text: str
    citations: list[int]


def attribute(
    sentences: Sequence[tuple[str, Sequence[int]]], passages: Sequence[str]
) -> list[Attributed]:
    """The real sentences of each (text, the 1-based numbers of ``passages`` it cited;
    a piece cut off mid-sentence joined to the next: ``joined``), each with the passages
    that state at least ``GROUNDED`` of its content words between them: its own citations
    when they do and no shown passages state ``MARGIN`` more of them, else the shown
    passages that state the most. A sentence that no passage states is left out, and so
    is one that only announces what follows ("Here is an example:"); one with fewer than
    ``MIN_WORDS`` content words keeps the citations it was given."""
    stems = dict(enumerate((content_stems(p) for p in passages), start=1))
    out = []
    for text, cited in joined(sentences):
        known = [n for n in cited if n in stems]
        for said in split_sentences(text):
            sentence = unnarrated(said)
            if sentence.rstrip().endswith(":"):  # "Here's an example:", with nothing after it
                continue
            words = content_stems(sentence)
            if len(words) < MIN_WORDS:
                if known:
                    out.append(Attributed(sentence, known))
                continue
            own, share = cover(words, {n: stems[n] for n in known})
            best, most = cover(words, stems)
            if share >= GROUNDED and share >= most - MARGIN:
                out.append(Attributed(sentence, own))
            elif most >= GROUNDED:
                out.append(Attributed(sentence, best))
    return out


def joined(written: Sequence[tuple[str, Sequence[int]]]) -> list[tuple[str, list[int]]]:
    """The model's sentences, a piece it cut off mid-sentence joined to the next one ("The
    errors in Python float operations," then "are inherited from the hardware"): a piece
    that does not end a sentence, followed by one that does not begin one (lower case),
    with the citations of both."""
    out: list[tuple[str, list[int]]] = []
    for text, cited in written:
        if out and text[:1].islower() and not out[-1][0].rstrip().endswith((".", "!", "?")):
            before, cites = out[-1]
            out[-1] = (f"{before} {text}", list(dict.fromkeys([*cites, *cited])))
        elif text:
            out.append((text, list(cited)))
    return out


def unnarrated(sentence: str) -> str:
    """The sentence without a leading "The passage states that" (its first word
    capitalised unless it is code: ``dir()``), or as it is."""
    rest = _NARRATED.sub("", sentence, count=1)
    if rest == sentence or not rest:
        return sentence
    first = rest.split(maxsplit=1)[0]
    return rest[:1].upper() + rest[1:] if first.isalpha() else rest


def cover(words: set[str], passages: dict[int, set[str]]) -> tuple[list[int], float]:
    """The passages (numbers) that state the most of ``words`` between them, taken
    greedily (the lowest number first on a tie) while each further one adds at least
    ``GAIN`` of them and ``ADDED`` words; and the share of ``words`` they state."""
    chosen: list[int] = []
    stated: set[str] = set()
    while len(chosen) < MAX_SOURCES:
        gains = {n: len((s & words) - stated) for n, s in passages.items() if n not in chosen}
        best = min(gains, key=lambda n: (-gains[n], n), default=None)
        least = max(ADDED, GAIN * len(words)) if chosen else 1
        if best is None or gains[best] < least:
            break
        chosen.append(best)
        stated |= passages[best] & words
    return chosen, len(stated) / len(words) if words else 0.0
