"""``LLM``: the facade the rest of GraphMind uses for structured model output."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import replace
from functools import cache
from typing import Any

from pydantic import BaseModel

from graphmind.core.closing import Closing
from graphmind.core.errors import LLMOutputError
from graphmind.llm.base import Completion, LLMRequestError, Message, Provider
from graphmind.llm.cache import ResponseCache, cache_key
from graphmind.llm.ledger import Ledger
from graphmind.llm.odds import Odds, OddsRequest
from graphmind.llm.parsing import OutputParseError, parse_output

_REPAIR_ECHO_CHARS = 4000


def repair_message(error: str, *, truncated: bool) -> Message:
    """The user turn that asks the model to fix its previous answer."""
    text = f"Your previous answer was not valid: {error}\n"
    if truncated:
        text += "It was cut off at the length limit: give a shorter answer.\n"
    text += (
        "Reply again with only the JSON value that matches the schema: "
        "no explanation, no code fences."
    )
    return {"role": "user", "content": text}


class LLM(Closing):
    """Structured calls with a response cache, repair retries and a token ledger.

    ``structured`` returns a validated pydantic model or raises LLMOutputError
    (invalid after ``max_retries`` repair turns, or refused); LLMError means the
    model itself is unusable (endpoint down, model file broken).
    """

    def __init__(
        self,
        provider: Provider,
        *,
        cache: ResponseCache | None,
        ledger: Ledger | None = None,
        max_retries: int = 2,
        max_tokens: int = 1024,
        temperature: float = 0.0,
        concurrency: int | None = None,
    ) -> None:
        self.provider = provider
        self.cache = cache
        self.ledger = ledger if ledger is not None else Ledger()
        self.max_retries = max_retries
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.concurrency = max(1, min(provider.concurrency, concurrency or provider.concurrency))

    @property
    def model_id(self) -> str:
        """The provider's model identity."""
        return self.provider.model_id

    def structured[T: BaseModel](
        self,
        task: str,
        messages: list[Message],
        output: type[T],
        *,
        max_tokens: int | None = None,
    ) -> T:
        """Ask for an ``output`` instance; ``task`` names the ledger row and errors.

        ``max_tokens`` caps this call below the client's cap (a call whose output is
        small by construction should not be able to run on to the general cap)."""
        return self._structured(task, messages, output, max_tokens, None)[0]

    def structured_odds[T: BaseModel](
        self,
        task: str,
        messages: list[Message],
        output: type[T],
        odds: OddsRequest,
        *,
        max_tokens: int | None = None,
    ) -> tuple[T, Odds | None]:
        """``structured``, and how sure the model was of some fields' options
        (``graphmind.llm.odds``): None where the provider cannot read log-probabilities.
        Cached with the answer."""
        return self._structured(task, messages, output, max_tokens, odds)

    def _structured[T: BaseModel](
        self,
        task: str,
        messages: list[Message],
        output: type[T],
        max_tokens: int | None,
        odds: OddsRequest | None,
    ) -> tuple[T, Odds | None]:
        schema = output_schema(output)
        cap = min(max_tokens, self.max_tokens) if max_tokens else self.max_tokens
        asked = {f: list(o) for f, o in odds.items()} if odds else None
        key = cache_key(self.model_id, messages, schema, cap, self.temperature, odds=asked)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                try:
                    text, hit_odds = _unwrap(hit.text) if asked else (hit.text, None)
                    value = parse_output(text, output)
                except OutputParseError:
                    pass  # stale entry: ask again and replace it
                else:
                    self.ledger.record_cache_hit(
                        task, tokens=hit.prompt_tokens + hit.completion_tokens
                    )
                    return value, hit_odds
        conversation = list(messages)
        error = ""
        for attempt in range(self.max_retries + 1):
            if attempt:
                self.ledger.record_retry(task)
            completion = self._call(task, conversation, schema, attempt, cap, asked)
            try:
                value = parse_output(completion.text, output)
            except OutputParseError as exc:
                error = str(exc)
                conversation = [
                    *messages,
                    {"role": "assistant", "content": completion.text[:_REPAIR_ECHO_CHARS]},
                    repair_message(error, truncated=completion.completion_tokens >= cap),
                ]
                continue
            if self.cache is not None:
                stored = replace(completion, text=_wrap(completion)) if asked else completion
                self.cache.put(key, stored)
            return value, completion.odds
        self.ledger.record_failure(task)
        raise LLMOutputError(task, error, self.max_retries + 1)

    def _call(
        self,
        task: str,
        conversation: list[Message],
        schema: dict[str, Any],
        attempt: int,
        max_tokens: int,
        odds: OddsRequest | None = None,
    ) -> Completion:
        """One provider call, recorded; a refused request becomes LLMOutputError."""
        call_started = time.monotonic()
        try:
            completion = self.provider.complete(
                conversation,
                schema=schema,
                max_tokens=max_tokens,
                temperature=self.temperature,
                **({"odds": odds} if odds else {}),
            )
        except LLMRequestError as exc:
            self.ledger.record_failure(task, seconds=time.monotonic() - call_started)
            raise LLMOutputError(task, str(exc), attempt + 1) from exc
        except Exception:
            self.ledger.record_failure(task, seconds=time.monotonic() - call_started)
            raise
        self.ledger.record_call(
            task,
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
            seconds=time.monotonic() - call_started,
            retries=completion.retries,
            capped=completion.completion_tokens >= max_tokens,
        )
        return completion

    def structured_many[T: BaseModel](
        self,
        task: str,
        requests: Sequence[list[Message]],
        output: type[T],
        *,
        on_done: Callable[[int], None] | None = None,
    ) -> list[T | LLMOutputError]:
        """``structured`` for each request, ``concurrency`` at a time, results in order.

        An item whose output stays invalid yields its LLMOutputError in place and the
        batch goes on. Any other error (LLMError: the endpoint or model is unusable)
        cancels the requests not yet started and is raised: one dead endpoint should
        fail the batch once, not once per item. ``on_done(n)`` is called in the
        calling thread with the number of finished items after each one finishes.
        """
        results: list[T | LLMOutputError | None] = [None] * len(requests)

        def one(index: int) -> None:
            try:
                results[index] = self.structured(task, requests[index], output)
            except LLMOutputError as exc:
                results[index] = exc

        if self.concurrency == 1 or len(requests) <= 1:
            for index in range(len(requests)):
                one(index)
                if on_done is not None:
                    on_done(index + 1)
        else:
            with ThreadPoolExecutor(self.concurrency, thread_name_prefix="graphmind-llm") as pool:
                futures: list[Future[None]] = [pool.submit(one, i) for i in range(len(requests))]
                try:
                    for done, future in enumerate(as_completed(futures), start=1):
                        future.result()
                        if on_done is not None:
                            on_done(done)
                except BaseException:
                    for pending in futures:
                        pending.cancel()
                    raise
        return [r for r in results if r is not None]

    def reset_context(self) -> None:
        """Make the next call start cold: a provider that reuses the previous prompt's
        prefix (llama.cpp) forgets it. Evaluations call it between questions so one
        configuration's prompt does not speed up another's."""
        reset = getattr(self.provider, "reset_context", None)
        if callable(reset):
            reset()

    def close(self) -> None:
        """Close the response cache."""
        if self.cache is not None:
            self.cache.close()


def _wrap(completion: Completion) -> str:
    """A completion with odds as the cache stores it: the text and the odds in one JSON."""
    return json.dumps({"text": completion.text, "odds": completion.odds})


def _unwrap(stored: str) -> tuple[str, Odds | None]:
    """The text and odds of a cached completion with odds (``_wrap``)."""
    try:
        data = json.loads(stored)
        return str(data["text"]), data.get("odds")
    except (ValueError, TypeError, KeyError) as exc:
        raise OutputParseError(f"not a cached answer with odds: {exc}") from exc


@cache
def output_schema(output: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema of an output model (computed once: pydantic's is slow), with the
    model's ``example`` as its ``examples`` (in field order: pydantic sorts its own)."""
    schema = output.model_json_schema()
    example = getattr(output, "example", None)
    return {**schema, "examples": [example]} if isinstance(example, dict) else schema
