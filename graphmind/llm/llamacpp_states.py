"""Saved prompt states for llama.cpp: a conversation resumed after other calls reads only
its new turn.

llama.cpp keeps the one prompt it evaluated last, so a call that shares its prefix reads
only the rest. A call in between overwrites it: the full answer goes on from round 1's
conversation after the loop's later rounds asked other passages, and read round 1's
passages again (20 to 30 s of 2 cores for the 1.5B). So the KV cells of every completed
call are kept, least recently used first out, bounded in bytes, and a call restores the
state with the longest prefix it shares when that is longer than what the context holds.
llama-cpp-python's own ``LlamaRAMCache`` does the same through the same hooks
(``Llama.cache``, ``save_state``, ``load_state``) but copies a batch's logits with each
state, 311 MB for Qwen2.5's vocabulary; only the KV cells of sequence 0 are kept here
(about 28 KB a token for the 1.5B, 12 KB for the 0.5B).
"""

from __future__ import annotations

import ctypes
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

MIN_SHARED = 64  # tokens a saved state must share with a prompt to be worth restoring


@dataclass(frozen=True)
class SavedState:
    """The tokens a context had evaluated and its KV cells."""

    input_ids: np.ndarray[Any, np.dtype[np.intc]]
    kv: bytes

    @property
    def llama_state_size(self) -> int:
        return len(self.kv)


class PrefixStates:
    """Saved states keyed by their tokens, found by the longest prefix shared with a
    prompt (llama-cpp-python's cache interface: ``states[tokens]`` raises ``KeyError``
    when none shares ``MIN_SHARED``)."""

    def __init__(self, capacity_bytes: int) -> None:
        self.capacity_bytes = capacity_bytes
        self.states: OrderedDict[tuple[int, ...], SavedState] = OrderedDict()
        self.restored = 0  # states loaded back (for tests and the curious)

    def __bool__(self) -> bool:
        return self.capacity_bytes > 0

    def __getitem__(self, tokens: Sequence[int]) -> SavedState:
        best, most = None, MIN_SHARED - 1
        for key in self.states:
            shared = shared_prefix(key, tokens)
            if shared > most:
                best, most = key, shared
        if best is None:
            raise KeyError("no saved state shares the prompt's prefix")
        self.states.move_to_end(best)
        return self.states[best]

    def __setitem__(self, tokens: Sequence[int], state: SavedState) -> None:
        key = tuple(tokens)
        self.states.pop(key, None)
        if state.llama_state_size > self.capacity_bytes:
            return
        self.states[key] = state
        while sum(s.llama_state_size for s in self.states.values()) > self.capacity_bytes:
            self.states.popitem(last=False)

    def clear(self) -> None:
        self.states.clear()


def shared_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """How many leading tokens ``a`` and ``b`` share."""
    n = min(len(a), len(b))
    if n == 0:
        return 0
    differ = np.flatnonzero(np.asarray(a[:n]) != np.asarray(b[:n]))
    return int(differ[0]) if len(differ) else n


def install_states(llama: Any, capacity_bytes: int) -> PrefixStates:
    """Give ``llama`` (a ``llama_cpp.Llama``) saved prompt states of at most
    ``capacity_bytes`` in all; 0 keeps none."""
    from llama_cpp import llama_cpp as c

    states = PrefixStates(capacity_bytes)

    def save_state() -> SavedState:
        size = c.llama_state_seq_get_size(llama._ctx.ctx, 0)
        buffer = (ctypes.c_uint8 * size)()
        written = c.llama_state_seq_get_data(llama._ctx.ctx, buffer, size, 0)
        kv = ctypes.string_at(buffer, written)
        return SavedState(llama.input_ids[: llama.n_tokens].copy(), kv)

    def load_state(state: SavedState) -> None:
        size = len(state.kv)
        buffer = (ctypes.c_uint8 * size).from_buffer_copy(state.kv)
        if c.llama_state_seq_set_data(llama._ctx.ctx, buffer, size, 0) != size:
            llama.reset()  # nothing restored: the prompt is read in full
            return
        n = len(state.input_ids)
        llama.input_ids[:n] = state.input_ids
        llama.n_tokens = n
        llama._requires_eval = True  # the logits are not saved: the last token is read again
        states.restored += 1

    llama.save_state = save_state
    llama.load_state = load_state
    llama.cache = states if capacity_bytes > 0 else None
    return states
