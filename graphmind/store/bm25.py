"""BM25 ranking for full-text hits whose backend score ignores how rare a word is.

FalkorDB's full-text index (RediSearch) finds the nodes holding a query word, but the
score it yields cannot be trusted for ranking: on a built 2Wiki store it scored the
common "film" 3.0 and the rare title word "Aatma" 1.2, so a question's common words
buried the passage it names. GraphMind therefore asks the index for each word's
document frequency, pools the nodes holding the rarer words and ranks them with Okapi
BM25 over their text (Lucene, behind Neo4j, already does this).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping

K1 = 1.2
B = 0.75
MAX_QUERY_WORDS = 32
_WORD = re.compile(r"\w+", re.UNICODE)


def stem(word: str) -> str:
    """A light plural fold, close to what the index's stemmer merges ("films" -> "film")."""
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def query_terms(text: str) -> list[str]:
    """The distinct lower-cased words of ``text``, in order, at most 32."""
    return list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))[:MAX_QUERY_WORDS]


def pool_terms(df: Mapping[str, int], budget: int) -> list[str]:
    """The rarest words whose matches fit in ``budget`` nodes (always at least one)."""
    chosen: list[str] = []
    total = 0
    for term in sorted(df, key=lambda t: (df[t], t)):
        if chosen and total + df[term] > budget:
            break
        chosen.append(term)
        total += df[term]
    return chosen


def rank(
    docs: Iterable[tuple[str, str]], df: Mapping[str, int], n_docs: int, k: int
) -> list[tuple[str, float]]:
    """The ``k`` best ``(id, text)`` documents for the words in ``df``, BM25-scored.

    ``n_docs`` is the size of the indexed collection; document lengths are normalised
    by the pool's average length. Ties go to the smaller id, so results are stable.
    """
    weights = {stem(t): idf(d, max(n_docs, d)) for t, d in df.items()}
    surface = {form: s for s in weights for form in (s, s + "s")}  # the forms stem() folds
    pooled: list[tuple[str, Counter[str], int]] = []
    for doc_id, text in docs:
        tokens = _WORD.findall(text.lower())
        pooled.append((doc_id, Counter(surface[w] for w in tokens if w in surface), len(tokens)))
    if not pooled:
        return []
    avg_len = sum(n for _, _, n in pooled) / len(pooled) or 1.0
    scored: list[tuple[str, float]] = []
    for doc_id, counts, length in pooled:
        norm = K1 * (1 - B + B * length / avg_len)
        score = sum(
            w * counts[t] * (K1 + 1) / (counts[t] + norm) for t, w in weights.items() if counts[t]
        )
        if score > 0:
            scored.append((doc_id, score))
    scored.sort(key=lambda s: (-s[1], s[0]))
    return scored[:k]


def idf(df: int, n_docs: int) -> float:
    """Okapi BM25's inverse document frequency (never negative)."""
    return math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
