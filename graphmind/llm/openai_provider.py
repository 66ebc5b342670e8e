"""Any OpenAI-compatible chat endpoint (OpenAI, vLLM, llama-server, Ollama, LM Studio …).

Structured output is asked for as ``json_schema``; a server that rejects it with
HTTP 400 is asked again with ``json_object`` and then with plain text, and the
first mode that works is kept for the session. The schema is also given in the
system prompt (always in the fallback modes; by default in ``json_schema`` mode,
since many servers constrain decoding without showing the model the schema).
Rate limits, 5xx, timeouts and connection errors are retried here with
exponential backoff and jitter, honouring ``Retry-After``.
"""

from __future__ import annotations

import email.utils
import math
import random
import threading
import time
from collections.abc import Callable
from typing import Any, Literal

import openai

from graphmind.core.errors import LLMError
from graphmind.core.redact import public_url
from graphmind.llm.base import (
    Completion,
    LLMRequestError,
    Message,
    schema_instruction,
    with_instruction,
)
from graphmind.llm.odds import Odds, OddsReader, OddsRequest

Mode = Literal["json_schema", "json_object", "plain"]
_MODES: tuple[Mode, ...] = ("json_schema", "json_object", "plain")
_RETRY_STATUS = frozenset({408, 409, 425, 429})
_MAX_RETRY_AFTER = 120.0
_TOP_LOGPROBS = 20  # the most the OpenAI API gives per token


def retry_after(headers: Any) -> float | None:
    """Seconds from ``Retry-After-Ms`` / ``Retry-After`` (seconds or an HTTP date), if any."""
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class OpenAIProvider:
    """Chat completions from an OpenAI-compatible endpoint through the ``openai`` SDK."""

    supports_schema: bool

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 180.0,
        concurrency: int = 4,
        max_attempts: int = 5,
        backoff_base: float = 1.0,
        backoff_max: float = 30.0,
        schema_in_prompt: bool = True,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        try:
            self.client = openai.OpenAI(
                api_key=api_key or ("not-needed" if base_url else None),
                base_url=base_url,
                timeout=timeout,
                max_retries=0,
            )
        except openai.OpenAIError as exc:
            raise LLMError(f"cannot set up the OpenAI client: {exc}") from exc
        self.model = model
        # printed in errors and part of model_id, stored on Agent and Decision nodes:
        # never a key or password of the endpoint's URL
        self.base_url = public_url(str(self.client.base_url)).rstrip("/")
        self.model_id = f"openai:{model}@{self.base_url}"
        self.concurrency = concurrency
        self.max_attempts = max(1, max_attempts)
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.schema_in_prompt = schema_in_prompt
        self.sleep = sleep
        self.mode: Mode = "json_schema"
        self.supports_schema = True
        self.in_process = False
        self._token_param = "max_tokens"
        self._logprobs = True  # until the server refuses them
        self._lock = threading.Lock()

    def complete(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any] | None,
        max_tokens: int,
        temperature: float,
        odds: OddsRequest | None = None,
    ) -> Completion:
        """One completion in the session's structured-output mode, falling back on HTTP 400.

        ``odds`` are read from the answer's ``logprobs`` (the top 20 per token); a server
        that refuses ``logprobs`` is asked without them for the rest of the session."""
        with self._lock:
            mode = self.mode
            odds = odds if self._logprobs else None
        first_refusal: openai.BadRequestError | None = None
        for candidate in _MODES[_MODES.index(mode) :]:
            try:
                completion = self._create(
                    candidate, messages, schema, max_tokens, temperature, odds
                )
            except openai.BadRequestError as exc:
                if self._switch_token_param(exc) or self._drop_logprobs(exc, odds):
                    return self.complete(
                        messages,
                        schema=schema,
                        max_tokens=max_tokens,
                        temperature=temperature,
                        odds=odds,
                    )
                first_refusal = first_refusal or exc
                continue
            if candidate != mode:
                with self._lock:
                    self.mode = candidate
                    self.supports_schema = candidate == "json_schema"
            return completion
        assert first_refusal is not None
        raise LLMRequestError(f"{self.base_url} refused the request: {_message(first_refusal)}")

    def _switch_token_param(self, exc: openai.BadRequestError) -> bool:
        """Newer OpenAI models want ``max_completion_tokens``; switch once when told so."""
        with self._lock:
            if self._token_param == "max_tokens" and "max_completion_tokens" in _message(exc):
                self._token_param = "max_completion_tokens"
                return True
        return False

    def _drop_logprobs(self, exc: openai.BadRequestError, odds: OddsRequest | None) -> bool:
        """A server that refuses ``logprobs`` is not asked for them again."""
        with self._lock:
            if odds and self._logprobs and "logprobs" in _message(exc).lower():
                self._logprobs = False
                return True
        return False

    def _create(
        self,
        mode: Mode,
        messages: list[Message],
        schema: dict[str, Any] | None,
        max_tokens: int,
        temperature: float,
        odds: OddsRequest | None = None,
    ) -> Completion:
        """One request in ``mode``, retried on transient failures."""
        kwargs: dict[str, Any] = {
            "model": self.model,
            "temperature": temperature,
            self._token_param: max_tokens,
        }
        if odds:
            kwargs["logprobs"] = True
            kwargs["top_logprobs"] = _TOP_LOGPROBS
        if mode == "json_schema" and schema is not None:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": _schema_name(schema),
                    "schema": schema,
                    "strict": False,
                },
            }
            kwargs["messages"] = (
                with_instruction(messages, schema_instruction(schema))
                if self.schema_in_prompt
                else messages
            )
        else:
            if mode != "plain":
                kwargs["response_format"] = {"type": "json_object"}
            kwargs["messages"] = with_instruction(messages, schema_instruction(schema))
        retries = 0
        while True:
            try:
                response = self.client.chat.completions.create(**kwargs)
                break
            except (openai.APITimeoutError, openai.APIConnectionError) as exc:
                delay = None
                error: Exception = exc
            except openai.APIStatusError as exc:
                if exc.status_code == 400:
                    raise
                if exc.status_code not in _RETRY_STATUS and exc.status_code < 500:
                    raise self._fatal(exc) from exc
                delay = retry_after(exc.response.headers)
                error = exc
            except (openai.OpenAIError, ValueError) as exc:  # not a chat completion at all
                raise self._unusable(str(exc)) from exc
            retries += 1
            if retries >= self.max_attempts:
                hint = _hint(error)
                raise LLMError(
                    f"{self.base_url} failed {retries} times; last error: {_message(error)}{hint}"
                ) from error
            self.sleep(self._backoff(retries) if delay is None else min(delay, _MAX_RETRY_AFTER))
        choices = getattr(response, "choices", None)
        if not choices or getattr(choices[0], "message", None) is None:
            raise self._unusable("no choices in the response")
        usage = getattr(response, "usage", None)
        return Completion(
            text=choices[0].message.content or "",
            prompt_tokens=(usage.prompt_tokens or 0) if usage else 0,
            completion_tokens=(usage.completion_tokens or 0) if usage else 0,
            model=getattr(response, "model", None) or self.model,
            retries=retries,
            odds=read_odds(getattr(choices[0], "logprobs", None), odds) if odds else None,
        )

    def _unusable(self, detail: str) -> LLMError:
        return LLMError(
            f"{self.base_url} did not answer with a chat completion ({detail[:200]}); "
            "GRAPHMIND_LLM_BASE_URL should be the API root, usually ending in /v1"
        )

    def _backoff(self, retry: int) -> float:
        """Exponential backoff with full jitter around the nominal delay."""
        nominal = min(self.backoff_max, self.backoff_base * 2.0 ** (retry - 1))
        return nominal * random.uniform(0.5, 1.5)

    def _fatal(self, exc: openai.APIStatusError) -> LLMError:
        hint = {
            401: "check GRAPHMIND_LLM_API_KEY",
            403: "check GRAPHMIND_LLM_API_KEY and the model's access",
            404: "check GRAPHMIND_LLM_BASE_URL (it usually ends in /v1) and GRAPHMIND_LLM_MODEL",
        }.get(exc.status_code)
        text = f"{self.base_url} answered HTTP {exc.status_code}: {_message(exc)}"
        if hint:
            return LLMError(f"{text} ({hint})")
        return LLMRequestError(text)


def read_odds(logprobs: Any, request: OddsRequest) -> Odds | None:
    """The asked fields' odds from a chat completion's ``logprobs``: at the token where a
    field's value begins, each option's best log-probability among the top tokens that
    begin it (an option absent from them had almost none)."""
    reader = OddsReader(request)
    for token in getattr(logprobs, "content", None) or []:
        for field in reader.due():
            best: dict[str, float] = {}
            for top in getattr(token, "top_logprobs", None) or []:
                piece = str(getattr(top, "token", ""))
                for option in reader.request[field]:
                    if piece and option.startswith(piece):
                        best[option] = max(best.get(option, -math.inf), float(top.logprob))
            reader.note(field, best)
        reader.feed(str(getattr(token, "token", "")))
    return reader.result()


def _hint(error: Exception) -> str:
    """What to check after the last try of a request that never got an answer."""
    if isinstance(error, openai.APITimeoutError):
        return " (the model may be slow: raise GRAPHMIND_LLM_TIMEOUT)"
    if isinstance(error, openai.APIConnectionError):
        return " (nothing answered: is the server running, and is GRAPHMIND_LLM_BASE_URL right?)"
    return ""


def _schema_name(schema: dict[str, Any]) -> str:
    title = str(schema.get("title") or "output")
    name = "".join(ch if ch.isalnum() or ch in "_-" else "_" for ch in title)
    return name[:64] or "output"


def _message(exc: Exception) -> str:
    """A short message from an SDK error, preferring the server's own words."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:300]
        if isinstance(inner, str):
            return inner[:300]
    return str(exc)[:300]
