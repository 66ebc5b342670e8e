"""A fast, deterministic hashed embedder (provider ``hash``): not semantic; for tests
and benchmarks.

Each lower-cased word unigram and bigram is hashed with BLAKE2b into one of
``dimension`` signed buckets (the feature-hashing trick), and the bucket counts are
L2-normalised. Texts sharing words get close vectors; synonyms do not. The result is
the same in every process and on every machine (no use of Python's salted ``hash``).
"""

from __future__ import annotations

import hashlib
import math
import re
from functools import lru_cache
from itertools import pairwise

from graphmind.embed.base import BatchedEmbedder
from graphmind.embed.spec import EmbedderSpec

_WORD = re.compile(r"\w+")
# Texts without any word still get a unit vector, from this one feature.
_EMPTY_FEATURE = "\x00empty"


@lru_cache(maxsize=1 << 17)
def _bucket(feature: str, dimension: int) -> tuple[int, float]:
    """The bucket and sign of one feature."""
    value = int.from_bytes(hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest())
    return value % dimension, (-1.0 if value >> 63 else 1.0)


def features(text: str) -> list[str]:
    """Lower-cased word unigrams and bigrams (``"a b"``) of ``text``."""
    words = _WORD.findall(text.lower())
    return words + [f"{a} {b}" for a, b in pairwise(words)]


def hash_vector(text: str, dimension: int) -> list[float]:
    """The L2-normalised hashed vector of one text (counts kept per touched bucket only:
    the sums of squares are of whole numbers, so exact in any order)."""
    counts: dict[int, float] = {}
    for feature in features(text) or [_EMPTY_FEATURE]:
        index, sign = _bucket(feature, dimension)
        counts[index] = counts.get(index, 0.0) + sign
    vector = [0.0] * dimension
    norm = math.sqrt(sum(x * x for x in counts.values()))
    if norm == 0.0:  # every feature cancelled out: fall back to the empty-text vector
        index, sign = _bucket(_EMPTY_FEATURE, dimension)
        vector[index] = sign
        return vector
    for index, count in counts.items():
        vector[index] = count / norm
    return vector


class HashingEmbedder(BatchedEmbedder):
    """Feature-hashing embedder: not semantic; for tests and benchmarks."""

    normalizes = True

    def __init__(self, spec: EmbedderSpec, *, batch_size: int = 64) -> None:
        super().__init__(spec, batch_size=batch_size)

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        return [hash_vector(text, self.spec.dimension) for text in texts]
