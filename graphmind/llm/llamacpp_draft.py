"""Prompt-lookup drafts for llama.cpp: the model checks several guessed tokens at once.

On 2 CPU cores the 1.5B writes about 11 tokens a second, one decode each, while a decode
of 4 tokens costs about 1.5 single ones. What GraphMind asks it to write is mostly copied
from its prompt: names, phrases and whole sentences of the passages, the schema's field
names. So after each token the last few tokens written are looked up in the prompt (and
what was written so far) and the tokens that followed them there are offered as a draft;
one decode scores the draft, and the greedy pick at each position keeps the draft's
tokens up to the first that differs (llama-cpp-python's ``Llama.generate`` does this
whenever ``draft_model`` is set). A drafted token is kept only where the model picks it,
but a decode of several tokens rounds differently from one of a single token, so where
two tokens are nearly tied the pick can differ from the undrafted one (the wording of 5
of 12 full answers measured; none of the 12 short answers). Calls that read the model's odds (the
judges) draft nothing, so their odds stay those of one decode a token.

``llama_cpp.Llama(draft_model=...)`` would also keep the logits of every prompt token
(``logits_all``), which costs the whole vocabulary's projection for each of the
prompt's thousands of tokens; here a decode asks for logits at every position only when
it is a generation step (a few tokens), and the prompt keeps its single last row.
Drafts are offered only to greedy, grammar-bound calls (``llamacpp_sampling``), whose
sampler reads the context up to the position it samples.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


class PromptLookup:
    """The draft: the tokens that followed the last ``ngram`` tokens where they occur
    earlier (the longest n-gram of ``max_ngram`` down to ``min_ngram`` that does)."""

    def __init__(self, tokens: int, *, max_ngram: int = 3, min_ngram: int = 2) -> None:
        self.tokens = tokens
        self.max_ngram = max_ngram
        self.min_ngram = min_ngram
        self.active = False  # set per call: only greedy grammar-bound calls draft
        self.enabled = True  # off for a call that reads odds: a draft's decode moves logits
        self.steps = 0  # decodes a draft was asked for (one per generation step)

    @property
    def drafting(self) -> bool:
        return self.active and self.enabled and self.tokens > 0

    def __call__(self, input_ids: Any, /, **_: Any) -> Any:
        if not self.drafting:
            return np.array([], dtype=np.intc)
        draft = lookup(np.asarray(input_ids), self.tokens, self.max_ngram, self.min_ngram)
        self.steps += 1
        return draft


def lookup(ids: Any, tokens: int, max_ngram: int, min_ngram: int) -> Any:
    """Up to ``tokens`` tokens that followed the first earlier occurrence of the longest
    suffix n-gram of ``ids`` (none when no suffix of ``min_ngram`` tokens recurs)."""
    n_ids = len(ids)
    for n in range(min(max_ngram, n_ids - 1), min_ngram - 1, -1):
        suffix = ids[n_ids - n :]
        windows = np.lib.stride_tricks.sliding_window_view(ids[: n_ids - 1], n)
        starts = np.flatnonzero((windows == suffix).all(axis=1))
        if len(starts):  # a window ends before the last token: something follows it
            follow = ids[starts[0] + n : starts[0] + n + tokens]
            return np.asarray(follow, dtype=np.intc)
    return np.array([], dtype=np.intc)


def install_draft(llama: Any, tokens: int) -> PromptLookup:
    """Give ``llama`` (a ``llama_cpp.Llama``) prompt-lookup drafts of up to ``tokens``
    tokens; 0 drafts nothing. Returns the draft, whose ``active`` the sampler sets."""
    draft = PromptLookup(tokens)
    if tokens <= 0:
        return draft
    set_batch = llama._batch.set_batch

    def set_batch_scored(batch: Sequence[int], n_past: int, logits_all: bool) -> None:
        # a generation step (the token picked and its draft) is scored at every position
        step = draft.drafting and len(batch) <= draft.tokens + 1
        set_batch(batch=batch, n_past=n_past, logits_all=logits_all or step)

    llama._batch.set_batch = set_batch_scored
    llama.draft_model = draft
    record_sample_index(llama)
    return draft


def sampled_context(llama: Any) -> Any:
    """The tokens up to the position being sampled: with a draft decoded, the context
    also holds guessed tokens after it (``Llama.sample``'s index, recorded by
    ``record_sample_index``)."""
    idx = getattr(llama, "_graphmind_sample_idx", None)
    context = llama._input_ids
    if idx is None:
        return context
    return context[: idx + 1]


def record_sample_index(llama: Any) -> None:
    """Wrap ``llama.sample`` so the sampler knows which position it samples."""
    sample = llama.sample

    def sample_at(*args: Any, **kw: Any) -> Any:
        llama._graphmind_sample_idx = kw.get("idx")
        try:
            return sample(*args, **kw)
        finally:
            llama._graphmind_sample_idx = None

    llama.sample = sample_at
