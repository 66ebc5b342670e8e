"""The LLM layer: one provider interface, a cached and accounted structured-output facade.

``make_llm(settings, cache_dir=...)`` builds the configured ``LLM`` (or None when
no model is configured or installed); ``describe_llm`` says which one in a line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from graphmind.config import Settings
from graphmind.errors import ConfigError, GraphMindError, LLMError, LLMOutputError
from graphmind.llm.base import Completion, LLMRequestError, Message, Provider
from graphmind.llm.cache import ResponseCache, cache_key
from graphmind.llm.client import LLM
from graphmind.llm.ledger import Ledger, TaskUsage
from graphmind.llm.models import (
    DEFAULT_OFFLINE_MODEL,
    OFFLINE_MODELS,
    OfflineModel,
    default_gguf_path,
    offline_model_path,
)
from graphmind.llm.parsing import OutputParseError, parse_output
from graphmind.llm.scripted import RecordedProvider, ScriptedProvider

__all__ = [
    "DEFAULT_OFFLINE_MODEL",
    "LLM",
    "OFFLINE_MODELS",
    "Completion",
    "LLMChoice",
    "LLMError",
    "LLMOutputError",
    "LLMRequestError",
    "Ledger",
    "Message",
    "OfflineModel",
    "OutputParseError",
    "Provider",
    "RecordedProvider",
    "ResponseCache",
    "ScriptedProvider",
    "TaskUsage",
    "cache_key",
    "choose_llm",
    "default_gguf_path",
    "describe_llm",
    "make_llm",
    "make_provider",
    "parse_output",
]

CACHE_FILE = "llm_cache.sqlite"
NONE_HINT = "run scripts/fetch_model.py, or set GRAPHMIND_LLM_BASE_URL + GRAPHMIND_LLM_MODEL"


@dataclass(frozen=True)
class LLMChoice:
    """Which model the settings select: an endpoint, a GGUF file, or none."""

    kind: Literal["openai", "llama-cpp", "none"]
    model: str | None = None
    base_url: str | None = None
    gguf_path: Path | None = None
    default_model: bool = False


def choose_llm(settings: Settings) -> LLMChoice:
    """Decide the provider from the settings; ConfigError when they contradict themselves.

    ``llm_provider = "openai"`` or a base URL: an OpenAI-compatible endpoint (model
    required). ``"llama-cpp"`` or a GGUF path: that file, or the known offline
    model named by ``llm_model``, or the default one. ``"auto"`` with nothing set:
    the default offline model when it has been fetched, else none.
    """
    provider = settings.llm_provider
    if provider == "openai" or (provider == "auto" and settings.llm_base_url):
        if not settings.llm_model:
            raise ConfigError(
                "an OpenAI-compatible LLM needs a model name: set GRAPHMIND_LLM_MODEL"
            )
        return LLMChoice("openai", model=settings.llm_model, base_url=settings.llm_base_url)
    if settings.llm_gguf_path:
        path = Path(settings.llm_gguf_path).expanduser()
        if not path.is_file():
            raise ConfigError(f"GRAPHMIND_LLM_GGUF_PATH names {path}, which is not a file")
        return LLMChoice("llama-cpp", gguf_path=path)
    if settings.llm_model:
        if settings.llm_model not in OFFLINE_MODELS:
            known = ", ".join(OFFLINE_MODELS)
            raise ConfigError(
                f"GRAPHMIND_LLM_MODEL={settings.llm_model} needs GRAPHMIND_LLM_BASE_URL "
                f"(an OpenAI-compatible endpoint), or name an offline model: {known}"
            )
        path = offline_model_path(settings, settings.llm_model)
        if not path.is_file():
            raise ConfigError(
                f"offline model {settings.llm_model} is not fetched: "
                f"run scripts/fetch_model.py --model {settings.llm_model}"
            )
        return LLMChoice("llama-cpp", gguf_path=path)
    default = default_gguf_path(settings)
    if default is not None:
        return LLMChoice("llama-cpp", gguf_path=default, default_model=True)
    if provider == "llama-cpp":
        raise ConfigError(
            "no local model: run scripts/fetch_model.py, or set GRAPHMIND_LLM_GGUF_PATH"
        )
    return LLMChoice("none")


def make_provider(settings: Settings) -> Provider | None:
    """The configured provider (not yet loaded or called), or None."""
    choice = choose_llm(settings)
    if choice.kind == "openai":
        from graphmind.llm.openai_provider import OpenAIProvider

        assert choice.model is not None
        key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
        try:
            return OpenAIProvider(
                model=choice.model,
                base_url=choice.base_url,
                api_key=key,
                timeout=settings.llm_timeout,
                concurrency=settings.llm_concurrency,
            )
        except LLMError as exc:
            raise ConfigError(f"{exc} (set GRAPHMIND_LLM_API_KEY)") from exc
    if choice.kind == "llama-cpp":
        from graphmind.llm.llamacpp_provider import LlamaCppProvider

        assert choice.gguf_path is not None
        return LlamaCppProvider(
            choice.gguf_path, n_ctx=settings.llm_context, n_threads=settings.llm_threads
        )
    return None


def cache_path(settings: Settings, cache_dir: Path) -> Path | None:
    """The response cache file: ``llm_cache`` ("off" disables), else in ``cache_dir``."""
    if settings.llm_cache:
        if settings.llm_cache.strip().lower() == "off":
            return None
        return Path(settings.llm_cache).expanduser()
    return cache_dir / CACHE_FILE


def make_llm(settings: Settings, *, cache_dir: Path, ledger: Ledger | None = None) -> LLM | None:
    """The configured ``LLM`` with its response cache, or None when no model is available."""
    provider = make_provider(settings)
    if provider is None:
        return None
    path = cache_path(settings, cache_dir)
    return LLM(
        provider,
        cache=ResponseCache(path) if path is not None else None,
        ledger=ledger,
        max_retries=settings.llm_max_retries,
        max_tokens=settings.llm_max_tokens,
        temperature=settings.llm_temperature,
        concurrency=settings.llm_concurrency,
    )


def describe_llm(settings: Settings) -> str:
    """Which LLM GraphMind would use, in one line (never raises for bad settings)."""
    try:
        choice = choose_llm(settings)
    except GraphMindError as exc:
        return f"invalid: {exc}"
    if choice.kind == "openai":
        return (
            f"OpenAI-compatible: {choice.model} at {choice.base_url or 'https://api.openai.com/v1'}"
        )
    if choice.kind == "llama-cpp":
        from graphmind.llm.llamacpp_provider import INSTALL_HINT, llama_cpp_available

        text = f"llama.cpp in-process: {choice.gguf_path}"
        if choice.default_model:
            text += " (default offline model)"
        if not llama_cpp_available():
            text += f"; llama-cpp-python is missing: {INSTALL_HINT}"
        return text
    return f"none: {NONE_HINT}"
