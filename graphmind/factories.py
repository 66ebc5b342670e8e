"""Objects made from settings: the store, the embedder and the LLM.

The one place (with the API) that reads ``Settings``; the packages below take plain
arguments.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from graphmind.config import Settings, parse_store_uri
from graphmind.core.errors import (
    ConfigError,
    EmptyStoreError,
    GraphMindError,
    LLMError,
    StoreError,
    StoreUnavailableError,
)
from graphmind.core.redact import public_url
from graphmind.embed import Embedder
from graphmind.ingest.options import ExtractChoice, ExtractMode, auto_extract
from graphmind.llm import LLM, Ledger, Provider, ResponseCache
from graphmind.llm.models import OFFLINE_MODELS, default_gguf_path, offline_model_path
from graphmind.store import GraphStore
from graphmind.store.base import check_embedder


def open_store(
    settings: Settings, *, ensure_schema: bool = True, shared: bool = False, create: bool = True
) -> GraphStore:
    """Open the configured store and, by default, set up its schema for the embedder.

    ``shared``: for readers and single atomic writes (ask, feedback, doctor, cypher): an
    embedded store in use by another process is reached through that process's server
    instead of failing (its schema is then only checked, never changed).
    ``create=False``: for readers that must change nothing (the MCP server's reads):
    opened shared, an embedded store file that does not exist is refused instead of
    created, and the schema is only checked.
    """
    target = parse_store_uri(settings.store)
    embedder = settings.embedder_spec()
    if not create:
        shared = True
        if target.backend == "falkordb" and not Path(target.location).is_file():
            raise EmptyStoreError(f"there is no store at {target.location}: run graphmind build")
    store: GraphStore
    if target.backend == "falkordb":
        from graphmind.store.falkordb import FalkorDBLiteStore

        store = FalkorDBLiteStore(
            target.location, lock_wait=settings.store_lock_wait, attach=shared
        )
    else:
        from graphmind.store.neo4j import Neo4jStore

        password = settings.neo4j_password.get_secret_value() if settings.neo4j_password else None
        try:
            store = Neo4jStore(
                target.location,
                user=settings.neo4j_user,
                password=password,
                database=settings.neo4j_database,
            )
        except StoreError as exc:
            if password is None and _refused_credentials(exc):
                raise StoreUnavailableError(
                    f"{exc}: no password is set; set GRAPHMIND_NEO4J_PASSWORD "
                    "(or neo4j.password in graphmind.toml)"
                ) from exc
            raise
    if ensure_schema:
        try:
            if not create or getattr(store, "attached_to", None) is not None:
                meta = store.meta()
                if meta is not None:
                    check_embedder(meta, embedder, store.location)
            else:
                store.ensure_schema(embedder)
        except BaseException:
            store.close()
            raise
    return store


def _refused_credentials(exc: StoreError) -> bool:
    """Whether Neo4j refused to authenticate (rather than not being reachable)."""
    from neo4j.exceptions import AuthError

    cause = exc.__cause__
    return isinstance(cause, AuthError) or "credentials" in str(exc) or "Unauthorized" in str(exc)


def make_embedder(settings: Settings) -> Embedder:
    """The embedder the settings name (``GRAPHMIND_EMBEDDER``); models load on first use."""
    spec = settings.embedder_spec()
    if spec.provider == "hash":
        from graphmind.embed.hashing import HashingEmbedder

        return HashingEmbedder(spec, batch_size=settings.embed_batch_size)
    if spec.provider == "openai":
        from graphmind.embed.openai_provider import OpenAIEmbedder

        key = settings.embedder_api_key
        return OpenAIEmbedder(
            spec,
            base_url=settings.embedder_base_url,
            api_key=key.get_secret_value() if key is not None else None,
            batch_size=settings.embed_batch_size,
        )
    if spec.provider == "onnx":
        from graphmind.embed.onnx_provider import OnnxEmbedder

        return OnnxEmbedder(spec, batch_size=settings.embed_batch_size)
    if spec.provider == "sentence-transformers":
        from graphmind.embed.sentence_transformers_provider import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(
            spec, device=settings.embed_device, batch_size=settings.embed_batch_size
        )
    raise AssertionError(f"unhandled embedder provider {spec.provider!r}")


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
        path = offline_model_path(settings.model_path, settings.llm_model)
        if not path.is_file():
            raise ConfigError(
                f"offline model {settings.llm_model} is not fetched: "
                f"run scripts/fetch_model.py --model {settings.llm_model}"
            )
        return LLMChoice("llama-cpp", gguf_path=path)
    default = default_gguf_path(settings.model_path)
    if default is not None:
        return LLMChoice("llama-cpp", gguf_path=default, default_model=True)
    if provider == "llama-cpp":
        raise ConfigError(
            "no local model: run scripts/fetch_model.py, or set GRAPHMIND_LLM_GGUF_PATH"
        )
    return LLMChoice("none")


def build_extract(settings: Settings, mode: ExtractChoice) -> ExtractMode:
    """The extraction a build with ``mode`` runs: ``auto`` made concrete for the
    configured LLM (``auto_extract``: the LLM's triplets from an endpoint, spaCy's with
    the offline models or none); ConfigError when the LLM settings contradict themselves."""
    if mode != "auto":
        return mode
    kind = choose_llm(settings).kind
    return auto_extract(None if kind == "none" else kind == "llama-cpp")


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
                max_attempts=settings.llm_request_tries,
            )
        except LLMError as exc:
            raise ConfigError(f"{exc} (set GRAPHMIND_LLM_API_KEY)") from exc
    if choice.kind == "llama-cpp":
        from graphmind.llm.llamacpp_provider import LlamaCppProvider

        assert choice.gguf_path is not None
        return LlamaCppProvider(
            choice.gguf_path,
            n_ctx=settings.llm_context,
            n_threads=settings.llm_threads,
            saved_prompts_bytes=settings.llm_saved_prompts_mb << 20,
            draft_tokens=settings.llm_draft_tokens,
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
            f"OpenAI-compatible: {choice.model} at "
            f"{public_url(choice.base_url or 'https://api.openai.com/v1')}"
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
