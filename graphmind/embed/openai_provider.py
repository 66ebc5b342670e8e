"""Embeddings from an OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, vLLM,
llama.cpp server, Ollama, LM Studio …), through the ``openai`` SDK.

Batches of ``batch_size`` texts per request; rate limits (429), server errors (5xx),
timeouts and dropped connections are retried with exponential backoff (honouring
``Retry-After``), a bounded number of times.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable

from openai import (
    APIConnectionError,
    APIStatusError,
    AuthenticationError,
    NotFoundError,
    OpenAI,
    PermissionDeniedError,
)

from graphmind.core.errors import ConfigError
from graphmind.core.redact import public_url
from graphmind.embed.base import BatchedEmbedder, EmbeddingError
from graphmind.embed.spec import EmbedderSpec

# Sent when no key is configured: local servers ignore it, OpenAI answers 401.
DUMMY_API_KEY = "graphmind-no-key"
RETRY_STATUS = frozenset({408, 409, 425, 429})


def _retryable(status: int) -> bool:
    return status in RETRY_STATUS or status >= 500


def _retry_after(exc: APIStatusError) -> float | None:
    """Seconds the server asked us to wait, if it said."""
    headers = exc.response.headers
    for header, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(header)
        if value is None:
            continue
        try:
            return max(0.0, float(value) * scale)
        except ValueError:
            continue
    return None


class OpenAIEmbedder(BatchedEmbedder):
    """An OpenAI-compatible embeddings endpoint; vectors are normalised and size-checked."""

    def __init__(
        self,
        spec: EmbedderSpec,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        batch_size: int = 64,
        timeout: float = 60.0,
        max_retries: int = 5,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(spec, batch_size=batch_size)
        if base_url is None:  # OpenAI itself: the usual environment key may serve
            api_key = api_key or os.environ.get("OPENAI_API_KEY")
        self.max_retries = max(0, max_retries)
        self.backoff = backoff
        self.max_backoff = max_backoff
        self._sleep = sleep
        self._client = (
            OpenAI(api_key=api_key or DUMMY_API_KEY, timeout=timeout, max_retries=0)
            if base_url is None
            else OpenAI(
                api_key=api_key or DUMMY_API_KEY,
                base_url=base_url,
                timeout=timeout,
                max_retries=0,
            )
        )
        self.base_url = public_url(str(self._client.base_url))  # printed in errors

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        # OpenAI rejects empty strings; a space embeds as "nothing" just as well.
        inputs = [text if text.strip() else " " for text in texts]
        attempt = 0
        while True:
            try:
                response = self._client.embeddings.create(
                    model=self.spec.model, input=inputs, encoding_format="float"
                )
                break
            except (AuthenticationError, PermissionDeniedError) as exc:
                raise ConfigError(
                    f"embeddings endpoint {self.base_url} rejected the API key "
                    f"({exc.status_code}); set GRAPHMIND_EMBEDDER_API_KEY"
                ) from exc
            except NotFoundError as exc:
                raise ConfigError(
                    f"embeddings endpoint {self.base_url} answered 404 for model "
                    f"{self.spec.model!r}: check GRAPHMIND_EMBEDDER_BASE_URL (it usually ends "
                    f"in /v1) and the model name ({exc.message})"
                ) from exc
            except APIStatusError as exc:
                if not _retryable(exc.status_code) or attempt >= self.max_retries:
                    raise EmbeddingError(
                        f"embeddings endpoint {self.base_url} failed with HTTP "
                        f"{exc.status_code} after {attempt + 1} attempt(s): {exc.message}"
                    ) from exc
                delay = _retry_after(exc)
            except APIConnectionError as exc:  # includes timeouts
                if attempt >= self.max_retries:
                    raise EmbeddingError(
                        f"embeddings endpoint {self.base_url} unreachable after "
                        f"{attempt + 1} attempt(s): {exc.message}"
                    ) from exc
                delay = None
            if delay is None:
                delay = self.backoff * (2**attempt) * random.uniform(0.5, 1.0)
            self._sleep(min(delay, self.max_backoff))
            attempt += 1
        data = sorted(response.data, key=lambda item: item.index)
        vectors: list[list[float]] = []
        for item in data:
            embedding = item.embedding
            if not isinstance(embedding, list):
                raise EmbeddingError(
                    f"embeddings endpoint {self.base_url} returned a non-list embedding"
                )
            vectors.append([float(x) for x in embedding])
        return vectors
