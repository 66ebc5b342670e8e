"""Text grounding: whether passages state an answer, word for word or word by word."""

from __future__ import annotations

from graphmind.core.scoring import normalize_answer

GROUNDED = 0.5  # share of the answer's words a cited passage must state
STEM_CHARS = 5  # a word's crude stem: its first letters (worked ~ working ~ work)


STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "by",
        "with",
        "from",
        "and",
        "or",
        "is",
        "was",
        "were",
        "are",
        "be",
        "been",
        "who",
        "whom",
        "whose",
        "what",
        "which",
        "where",
        "when",
        "why",
        "how",
        "did",
        "does",
        "do",
        "that",
        "this",
        "it",
        "its",
        "as",
        "than",
        "still",
        "needed",
        "need",
        "information",
        "missing",
        "about",
    ]
)


def grounding(answer: str, texts: list[str]) -> float:
    """The share of the answer's (normalised) words that the texts state; yes and no
    count as stated (no passage says "yes")."""
    words = normalize_answer(answer).split()
    if not words:
        return 0.0
    if words in (["yes"], ["no"]):
        return 1.0 if texts else 0.0
    stated = set(normalize_answer(" ".join(texts)).split())
    return sum(1 for w in words if w in stated) / len(words)


def titled(title: str, name: str) -> bool:
    """Whether a passage titled ``title`` is about ``name``: one names the other whole
    ("Laura Knight"; "True Grit (1969 film)" for "True Grit"), not a rare word they
    share ("Staunton, Illinois" for "John George Lynch-Staunton")."""
    return bool(title) and (grounding(name, [title]) == 1.0 or grounding(title, [name]) == 1.0)


def content_stems(text: str) -> set[str]:
    """Content words, cut to ``STEM_CHARS`` letters."""
    return {w[:STEM_CHARS] for w in normalize_answer(text).split() if w not in STOPWORDS}


def content_stem(token: str) -> str:
    """A token's crude stem (``content_stems``'s), "" for a stopword or punctuation."""
    words = [w for w in normalize_answer(token).split() if w not in STOPWORDS]
    return words[0][:STEM_CHARS] if words else ""


def restates(missing: str, question: str, answer: str) -> bool:
    """Whether a "missing" diagnosis only restates the question and the answer (a small
    model's way of saying "nothing", e.g. "Lise Meitner worked with Otto Hahn")."""
    said = content_stems(missing)
    return not said or said <= content_stems(question) | content_stems(answer)


def states(answer: str, texts: list[str]) -> bool:
    """Whether one of the texts says the answer word for word (normalised): "Richland
    County" is not stated by a passage that only says "county"."""
    phrase = normalize_answer(answer)  # single-spaced already
    return bool(phrase) and any(f" {phrase} " in f" {normalize_answer(t)} " for t in texts)


def copied(said: str, prompt_text: str, texts: list[str]) -> bool:
    """Whether ``said`` is stated by the prompt's own text and by none of the texts."""
    return states(said, [prompt_text]) and not states(said, texts)


def echoes(said: str, prompt_text: str, texts: list[str]) -> bool:
    """Whether every word of ``said`` comes from the prompt's own text and some word from
    none of the texts: a check's "missing" of "1950" or query "Ana Roth born in Graz",
    pieced from the worked examples."""
    return grounding(said, [prompt_text]) == 1.0 and grounding(said, texts) < 1.0


def capitalised(text: str) -> str:
    """``text`` with its first letter in upper case ("the director of A" opening a
    sentence)."""
    return f"{text[:1].upper()}{text[1:]}"
