"""A GGUF model run in-process by llama.cpp (``llama-cpp-python``, the ``local`` extra).

The model is loaded on the first call and kept; calls are serialized (one
context, one thread at a time). Output is constrained by a grammar built from
the JSON schema, so a small model still answers with well-formed JSON.
"""

from __future__ import annotations

import codecs
import math
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from graphmind.core.errors import LLMError
from graphmind.llm.base import (
    Completion,
    LLMRequestError,
    Message,
    schema_instruction,
    with_instruction,
)
from graphmind.llm.bounds import StringBounds, string_limits
from graphmind.llm.llamacpp_draft import PromptLookup, install_draft
from graphmind.llm.llamacpp_sampling import install
from graphmind.llm.llamacpp_states import PrefixStates, install_states
from graphmind.llm.loops import repeated_tail
from graphmind.llm.models import known_model_for
from graphmind.llm.odds import OddsReader, OddsRequest

INSTALL_HINT = "install the local extra: pip install -e '.[local]'"


def llama_cpp_available() -> bool:
    """Whether ``llama_cpp`` can be imported (without importing it)."""
    import importlib.util

    return importlib.util.find_spec("llama_cpp") is not None


def gguf_model_id(path: Path) -> str:
    """``llama-cpp:<file name>:<sha256 prefix of a known model, else the size in bytes>``."""
    known = known_model_for(path)
    if known is not None:
        return f"llama-cpp:{path.name}:{known.sha256[:16]}"
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    return f"llama-cpp:{path.name}:{size}"


def available_cores() -> int:
    """The CPU cores this process may run on. llama-cpp-python's own default generates
    on half the CPUs, its prompt evaluation already uses them all: on 2 cores, one token
    took 156 ms on one thread and 86 ms on two (Qwen2.5-Coder-1.5B Q4_K_M)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class LlamaCppProvider:
    """Chat completions from a local GGUF file."""

    supports_schema = True
    concurrency = 1
    in_process = True

    def __init__(
        self,
        model_path: Path,
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        schema_in_prompt: bool = True,
        greedy_first: bool = True,
        saved_prompts_bytes: int = 512 << 20,
        draft_tokens: int = 3,
    ) -> None:
        self.model_path = model_path
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.schema_in_prompt = schema_in_prompt
        # at temperature 0, check the grammar on the best token before the whole vocabulary
        # (the same output, 1.6x the tokens a second: ``llamacpp_sampling``)
        self.greedy_first = greedy_first
        # the KV cells of recent prompts, so a conversation resumed after other calls reads
        # only its new turn (``llamacpp_states``)
        self.saved_prompts_bytes = saved_prompts_bytes
        self.saved: PrefixStates | None = None
        # tokens guessed from the prompt and checked in one decode (``llamacpp_draft``)
        self.draft_tokens = draft_tokens
        self.draft: PromptLookup | None = None
        self.model_id = gguf_model_id(model_path)
        self._llama: Any = None
        self._lock = threading.Lock()
        self._token_chars: Any = None  # characters of each token, for the string bounds
        self._quote: list[int] = []

    def _load(self) -> Any:
        """The loaded model (loading it on first use); call with the lock held."""
        if self._llama is not None:
            return self._llama
        try:
            import llama_cpp
        except ImportError as exc:
            raise LLMError(f"llama-cpp-python is not installed: {INSTALL_HINT}") from exc
        if not self.model_path.is_file():
            raise LLMError(f"GGUF model file {self.model_path} does not exist")
        kwargs: dict[str, Any] = {
            "n_ctx": self.n_ctx,
            "n_threads": self.n_threads or available_cores(),
            "verbose": False,
        }
        try:
            self._llama = llama_cpp.Llama(model_path=str(self.model_path), **kwargs)
        except (ValueError, RuntimeError, OSError) as exc:
            raise LLMError(f"llama.cpp could not load {self.model_path}: {exc}") from exc
        if self.greedy_first:  # drafts need this sampler: it reads up to its position
            install(self._llama)
            self.draft = install_draft(self._llama, self.draft_tokens)
        self.saved = install_states(self._llama, self.saved_prompts_bytes)
        return self._llama

    def complete(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any] | None,
        max_tokens: int,
        temperature: float,
        odds: OddsRequest | None = None,
    ) -> Completion:
        """One grammar-constrained JSON completion.

        The grammar fixes the form; the schema is also put in the system prompt
        (``schema_in_prompt``) because a small model otherwise does not know which
        fields to fill and tends to answer with empty lists. ``odds`` are read from the
        model's own logits (before the grammar) where each asked field's value begins.
        """
        response_format: dict[str, Any] = {"type": "json_object"}
        limits: tuple[dict[str, int], dict[str, int]] = ({}, {})
        if schema is not None:
            response_format["schema"] = grammar_schema(schema)
            limits = string_limits(schema)
            if self.schema_in_prompt:
                messages = with_instruction(messages, schema_instruction(schema))
        with self._lock:
            llama = self._load()
            processors: list[Callable[[Any, Any], Any]] = []
            reader = OddsReader(odds) if odds else None
            if reader is not None:  # first: it reads the model's logits as they came
                processors.append(_odds_processor(llama, reader))
            if limits[0] or limits[1]:
                processors.append(self._bounder(llama, StringBounds(*limits)))
            counter = _Counter()
            processors.append(counter)
            if self.draft is not None:
                self.draft.enabled = reader is None
            try:
                chunks = llama.create_chat_completion(
                    messages=messages,
                    response_format=response_format,
                    max_tokens=max_tokens,
                    temperature=temperature,
                    logits_processor=processors,
                    stream=True,
                )
                text, ended = _read_until_loop(chunks)
            except ValueError as exc:  # e.g. the prompt exceeds the context window
                raise LLMRequestError(f"llama.cpp refused the request: {exc}{_hint(exc)}") from exc
            except RuntimeError as exc:
                raise LLMError(f"llama.cpp failed: {exc}") from exc
        return Completion(
            text=text,
            prompt_tokens=counter.prompt,
            completion_tokens=counter.generated - int(ended),
            model=self.model_id,
            odds=reader.result() if reader is not None else None,
        )

    def _bounder(self, llama: Any, bounds: StringBounds) -> Callable[[Any, Any], Any]:
        """A logits processor that keeps the open string within its ``maxLength``: tokens
        longer than the room left are kept out, and with no room left only the closing
        quote may come (the grammar's bounds are left out; see ``grammar_schema``)."""
        import numpy as np

        if self._token_chars is None:
            self._token_chars = np.array(
                [
                    len(llama.detokenize([t]).decode("utf-8", "replace"))
                    for t in range(llama.n_vocab())
                ]
            )
            self._quote = llama.tokenize(b'"', add_bos=False, special=False)
        token_chars, quote = self._token_chars, self._quote
        written = _Written(llama)

        def keep_bounds(input_ids: Any, scores: Any) -> Any:
            bounds.feed(written.since_last(input_ids))
            room = bounds.room()
            if room is None or len(quote) != 1 or len(scores) != len(token_chars):
                return scores
            if room <= 0:
                scores[:] = -np.inf
                scores[quote[0]] = 0.0
            else:
                scores[token_chars > room] = -np.inf
            return scores

        return keep_bounds

    def reset_context(self) -> None:
        """Forget the evaluated and the saved prompts, so the next call reuses no prefix
        (fair timing)."""
        with self._lock:
            if self._llama is not None:
                self._llama.reset()
            if self.saved is not None:
                self.saved.clear()

    def close(self) -> None:
        """Free the model (it is loaded again on the next call)."""
        with self._lock:
            if self._llama is not None:
                self._llama.close()
                self._llama = None
                self.saved = None


class _Written:
    """What the model wrote between two calls of a logits processor (the prompt's
    tokens, the first call's ``input_ids``, excluded)."""

    def __init__(self, llama: Any) -> None:
        self.llama = llama
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.seen: int | None = None

    def since_last(self, input_ids: Any) -> str:
        if self.seen is None:
            self.seen = len(input_ids)
        new = input_ids[self.seen :]
        if not len(new):
            return ""
        self.seen = len(input_ids)
        return self.decoder.decode(self.llama.detokenize(list(new)))


class _Counter:
    """A logits processor that changes nothing and counts the prompt's tokens and the
    generated ones (a streamed completion reports no usage)."""

    def __init__(self) -> None:
        self.prompt = 0
        self.generated = 0

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        if not self.prompt:
            self.prompt = len(input_ids)
        self.generated = len(input_ids) - self.prompt + 1  # the token this call picks
        return scores


def _read_until_loop(chunks: Iterator[Any]) -> tuple[str, bool]:
    """The streamed completion's text, ended early once the model writes a list item for
    the third time (``repeated_tail``: a small model's loop, which would run to the cap),
    and whether the model ended it itself (its end-of-text token, not counted as written).

    Raising from a logits processor cannot stop llama.cpp (its sampler's callback
    swallows the exception), so the stream is read and closed here."""
    parts: list[str] = []
    ended = False
    try:
        for chunk in chunks:
            choice = chunk["choices"][0]
            piece = choice["delta"].get("content") or ""
            parts.append(piece)
            ended = choice.get("finish_reason") == "stop"
            if "}" in piece:
                cut = repeated_tail("".join(parts))
                if cut is not None:
                    return cut, False
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()
    return "".join(parts), ended


def _odds_processor(llama: Any, reader: OddsReader) -> Callable[[Any, Any], Any]:
    """A logits processor that changes nothing and notes, where an asked field's value
    begins, the logit of each option's first token (the option told apart from the others
    by it; options sharing a first token get the same odds). ``OddsReader.note``
    normalises them over the options, which is the log-softmax's own shift."""
    first = {
        field: {
            o: llama.tokenize(o.encode("utf-8"), add_bos=False, special=False)[:1] for o in options
        }
        for field, options in reader.request.items()
    }
    written = _Written(llama)

    def note_odds(input_ids: Any, scores: Any) -> Any:
        reader.feed(written.since_last(input_ids))
        for field in reader.due():
            reader.note(
                field,
                {
                    o: float(scores[t[0]]) if t and t[0] < len(scores) else -math.inf
                    for o, t in first[field].items()
                },
            )
        return scores

    return note_odds


# Bounds that llama.cpp turns into repetition rules: a string of at most 1,500
# characters becomes a grammar large enough to crash the sampler (measured: a
# segmentation fault), one of 160 makes each token ~20x slower. ``maxLength`` is kept
# while the model writes instead (``_bounder``); validation still enforces them. A small
# ``maxItems`` is kept: it is what stops a small model from repeating array items
# until the token cap.
_UNBOUNDED = ("maxLength", "minLength", "minItems", "pattern", "examples")
MAX_GRAMMAR_ITEMS = 32


def grammar_schema(node: Any) -> Any:
    """The schema without the length and pattern bounds the grammar cannot afford (and
    without ``examples``: prompt text, not a constraint)."""
    if isinstance(node, dict):
        return {
            k: grammar_schema(v)
            for k, v in node.items()
            if k not in _UNBOUNDED
            and not (k == "maxItems" and (not isinstance(v, int) or v > MAX_GRAMMAR_ITEMS))
        }
    if isinstance(node, list):
        return [grammar_schema(v) for v in node]
    return node


def _hint(exc: ValueError) -> str:
    """What to do about a refusal llama.cpp explains only in its own terms."""
    if "context window" in str(exc):
        return (
            " (the prompt and its answer do not fit the local model's context window: "
            "set GRAPHMIND_LLM_CONTEXT higher, e.g. 8192, or shorten the question or document)"
        )
    return ""
