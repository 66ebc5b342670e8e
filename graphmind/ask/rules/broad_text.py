"""What a small model's broad answer gives back that is not an answer: the question's own
words, a point it already made, the lines of the prompt it was shown, a passage's cut end.
Each is read per sentence: the 1.5B packs several sentences in one of its "sentences"."""

from __future__ import annotations

import re

from graphmind.ask.rules.text import content_stems
from graphmind.core.text import split_sentences

ECHO_SHARE = 0.5  # a lazy summary this much made of the question's words is not kept,
BORROWED = 2  # nor one with this many of the question's words that its passages lack
ECHOED = 2 / 3  # a sentence or point this much made of the question's words is left out,
REPEATED = 3 / 4  # and one this much made of the words of a sentence before it,
COPIED = 3 / 4  # or of the prompt's instructions
_BACK = re.compile(r"(It|Its|This|These|They|Their|Those|Such|Both)\b")  # leans on the last
_POINT_LINE = re.compile(r"(\[\d+\]\s*)?\(([^()]*)\)\s*")  # point_line's "[6] (title) "


def point_line(number: int, title: str, text: str) -> str:
    """One numbered point as the reduce prompt lists it (``untitled`` reads it back)."""
    return f"[{number}] ({title}) {text}"


def summary_echoes(title: str, summary: str, question: str, read: list[str]) -> bool:
    """Whether a map call's title and summary are of the question, not of the community:
    mostly the question's own words (the 1.5B wrote one for a logging community, kept,
    and the map call of a later question about saving objects copied it as a point), or
    ``BORROWED`` of the question's words that nothing it ``read`` says (a summary of the
    random and readline modules "for making long-running programs observable, handling
    logging, warnings, tracebacks", kept, went into the answers of two later questions)."""
    said = content_stems(f"{title} {summary}")
    borrowed = (said & content_stems(question)) - content_stems(" ".join(read))
    return _mostly(said, content_stems(question), ECHO_SHARE) or len(borrowed) >= BORROWED


def untitled(text: str, titles: set[str]) -> str:
    """A sentence without the point lines of the reduce prompt ("[6] (community title)
    point ...") the 1.5B copies: at its start, the title is taken off; further on (it runs
    on into the list, "... HTTP clients. [6] (Extending and Embedding the Python
    Interpreter, ...) The Python Standard Library provides ..."), the sentence ends there."""
    for line in _POINT_LINE.finditer(text):
        if line.group(2).strip() not in titles:
            continue
        if line.start() == 0:
            return untitled(text[line.end() :].strip(), titles)
        if line.group(1):  # a numbered point line: the model ran on into the list
            return text[: line.start()].strip()
    return text


def uncopied(text: str, instructions: str) -> str:
    """``text`` without its sentences that copy the prompt's ``instructions`` (a lazy
    summary ending "The broad question about the whole collection is asked; this group is
    one of several parts read for it.", the map prompt's own words)."""
    words = content_stems(instructions)
    return " ".join(
        s for s in split_sentences(text) if not _mostly(content_stems(s), words, COPIED)
    )


class Kept:
    """The sentences a broad answer has kept, and the test a new one passes: it does not
    mostly give the question back ("The documentation provides a detailed explanation of
    Python's object model, including identity, type, value, and mutability", for a question
    asking how it does), copy the prompt's ``instructions``, or repeat the words of one kept
    before it (the 1.5B gives one point back two or three times, a few words changed, even
    inside one of its "sentences")."""

    def __init__(self, question: str, instructions: str) -> None:
        self._question = content_stems(question)
        self._instructions = content_stems(instructions)
        self._said: list[set[str]] = []

    def keep(self, text: str) -> str:
        """What of ``text`` is new, sentence by sentence ("" for nothing), counted as said;
        a last sentence cut off mid-way (a point that copied a passage's cut end: "don't
        use PyExc_TypeError to mean that a filecouldn") goes when whole ones precede it."""
        sentences = split_sentences(text)
        if len(sentences) > 1 and sentences[-1][-1:].isalnum():
            sentences.pop()
        leaned_on = [bool(_BACK.match(s)) for s in sentences[1:]] + [False]
        return " ".join(
            s for s, lean in zip(sentences, leaned_on, strict=True) if self._new(s, lean)
        )

    def _new(self, sentence: str, leaned_on: bool) -> bool:
        """Whether ``sentence`` is kept; one the next sentence leans on ("These tools
        complement ...") is kept though it gives the question back."""
        words = content_stems(sentence)
        if (
            (_mostly(words, self._question, ECHOED) and not leaned_on)
            or _mostly(words, self._instructions, COPIED)
            or any(_mostly(words, said, REPEATED) for said in self._said)
        ):
            return False
        self._said.append(words)
        return True


def _mostly(said: set[str], of: set[str], share: float) -> bool:
    """Whether words ``said`` are none, or at least ``share`` of them words ``of``."""
    return not said or len(said & of) >= share * len(said)
