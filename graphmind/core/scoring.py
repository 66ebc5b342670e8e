"""SQuAD-style answer scoring: normalisation, exact match and token F1 over aliases.

Used by ``graphmind feedback --gold`` (token F1 >= 0.8 counts as correct, as in ROZA)
and by the evaluation harness.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable

CORRECT_F1 = 0.8
_ARTICLES = re.compile(r"\b(a|an|the)\b", re.IGNORECASE)
_PUNCTUATION = set(string.punctuation)


def normalize_answer(text: str) -> str:
    """Lower case, no punctuation, no articles, single spaces (the SQuAD v1.1 script)."""
    lowered = text.lower()
    no_punct = "".join(ch for ch in lowered if ch not in _PUNCTUATION)
    no_articles = _ARTICLES.sub(" ", no_punct)
    return " ".join(no_articles.split())


def exact_match(prediction: str, gold: str) -> float:
    """1.0 when the normalised strings are equal, else 0.0."""
    return float(normalize_answer(prediction) == normalize_answer(gold))


def token_f1(prediction: str, gold: str) -> float:
    """Harmonic mean of token precision and recall of the normalised strings.

    Like the SQuAD script, yes/no/noanswer only score when both sides are the same word.
    """
    pred, ref = normalize_answer(prediction), normalize_answer(gold)
    special = {"yes", "no", "noanswer"}
    if (pred in special or ref in special) and pred != ref:
        return 0.0
    pred_tokens, ref_tokens = pred.split(), ref.split()
    common = Counter(pred_tokens) & Counter(ref_tokens)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision = same / len(pred_tokens)
    recall = same / len(ref_tokens)
    return 2 * precision * recall / (precision + recall)


def best_exact_match(prediction: str, golds: Iterable[str]) -> float:
    """The best exact match over the gold answer and its aliases (0.0 with none)."""
    return max((exact_match(prediction, g) for g in golds), default=0.0)


def best_token_f1(prediction: str, golds: Iterable[str]) -> float:
    """The best token F1 over the gold answer and its aliases (0.0 with none)."""
    return max((token_f1(prediction, g) for g in golds), default=0.0)


def is_correct(prediction: str, golds: Iterable[str], threshold: float = CORRECT_F1) -> bool:
    """Whether the prediction counts as correct: best token F1 at least ``threshold``."""
    return best_token_f1(prediction, golds) >= threshold
