"""The LLM layer: one provider interface, a cached and accounted structured-output facade.

``make_llm(settings, cache_dir=...)`` builds the configured ``LLM`` (or None when
no model is configured or installed); ``describe_llm`` says which one in a line.
"""

from __future__ import annotations

from graphmind.core.errors import LLMError, LLMOutputError
from graphmind.llm.base import Completion, LLMRequestError, Message, Provider
from graphmind.llm.cache import ResponseCache, cache_key
from graphmind.llm.client import LLM
from graphmind.llm.ledger import Ledger, TaskUsage
from graphmind.llm.models import (
    DEFAULT_OFFLINE_MODEL,
    OFFLINE_MODELS,
    OfflineModel,
    default_gguf_path,
)
from graphmind.llm.parsing import OutputParseError, parse_output
from graphmind.llm.scripted import RecordedProvider, ScriptedProvider

__all__ = [
    "DEFAULT_OFFLINE_MODEL",
    "LLM",
    "OFFLINE_MODELS",
    "Completion",
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
    "default_gguf_path",
    "parse_output",
]
