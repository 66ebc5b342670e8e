"""Settings from environment variables (``GRAPHMIND_*``) and an optional ``graphmind.toml``.

Precedence: explicit arguments, then environment, then the TOML file, then defaults.
The TOML file may be flat (``llm_model = "..."``) or use one level of tables
(``[llm] model = "..."`` means ``llm_model``).

The knobs of the engine are sections: ``[build]``, ``[ask]``, ``[communities]``,
``[prune]`` and ``[eval]`` (with sub-tables such as ``[ask.retrieve]`` or
``[ask.memory.planner]``). A section is the engine's own options dataclass
(``BuildOptions``, ``AskOptions``, ...), validated by pydantic, so each default is
written once, in that dataclass; an environment variable reaches a nested knob with
``__`` between the names (``GRAPHMIND_ASK__K=5``, ``GRAPHMIND_ASK__MEMORY__MODE=off``).
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr, ValidationError
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from graphmind.ask.options import AskOptions
from graphmind.communities.pipeline import CommunityOptions
from graphmind.core.errors import ConfigError
from graphmind.core.redact import has_credentials, public_url
from graphmind.embed.spec import EmbedderSpec, parse_embedder
from graphmind.ingest.options import BuildOptions
from graphmind.memory.prune import PruneOptions

DEFAULT_STORE = "falkordb-lite://./.graphmind/graph.db"
FALKORDB_SCHEME = "falkordb-lite://"
NEO4J_SCHEMES = ("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://", "neo4j+ssc://")
CONFIG_ENV = "GRAPHMIND_CONFIG"
DEFAULT_CONFIG_FILE = "graphmind.toml"
SECTIONS: dict[str, type[Any] | None] = {
    "build": BuildOptions,
    "ask": AskOptions,
    "communities": CommunityOptions,
    "prune": PruneOptions,
    "eval": None,  # EvalOptions lives above this layer: ``graphmind.eval`` checks its table
}


class _TomlSource(PydanticBaseSettingsSource):
    """Reads graphmind.toml, flattening one level of tables into ``table_key``; the
    tables of ``SECTIONS`` stay nested (a name their dataclass lacks is refused)."""

    def __init__(self, settings_cls: type[BaseSettings], path: Path | None) -> None:
        super().__init__(settings_cls)
        self.path = path
        self.data = self._load()

    def _load(self) -> dict[str, Any]:
        if self.path is None or not self.path.is_file():
            return {}
        try:
            raw = tomllib.loads(self.path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, OSError) as exc:
            raise ConfigError(f"cannot read {self.path}: {exc}") from exc
        flat: dict[str, Any] = {}
        for key, value in raw.items():
            if key in SECTIONS and isinstance(value, dict):
                known = SECTIONS[key]
                if known is not None:
                    _check_names(known, value, f"{self.path}: [{key}")
                flat[key] = value
            elif isinstance(value, dict):
                for sub, subvalue in value.items():
                    flat[f"{key}_{sub}"] = subvalue
            else:
                flat[key] = value
        unknown = sorted(set(flat) - set(self.settings_cls.model_fields))
        if unknown:
            raise ConfigError(f"{self.path}: unknown setting(s) {', '.join(unknown)}")
        return flat

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return self.data.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return dict(self.data)


class Settings(BaseSettings):
    """All GraphMind settings. Environment variable = ``GRAPHMIND_`` + upper-case name."""

    model_config = SettingsConfigDict(
        env_prefix="GRAPHMIND_", env_nested_delimiter="__", extra="ignore"
    )

    store: str = Field(DEFAULT_STORE, description="store URI: falkordb-lite://PATH or bolt/neo4j")
    store_lock_wait: float = Field(0.0, ge=0, description="seconds to wait for a busy store")
    query_timeout: float = Field(
        30.0, gt=0, description="seconds a query of your own (cypher, MCP audit) may run"
    )
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr | None = None
    neo4j_database: str | None = None

    embedder: str = "onnx:all-MiniLM-L6-v2"
    embedding_dim: int | None = Field(None, gt=0)
    embedder_base_url: str | None = None
    embedder_api_key: SecretStr | None = None
    embed_batch_size: int = Field(64, gt=0)
    embed_device: str = "cpu"

    llm_provider: Literal["auto", "openai", "llama-cpp"] = "auto"
    llm_base_url: str | None = None
    llm_api_key: SecretStr | None = None
    llm_model: str | None = None
    llm_gguf_path: str | None = None
    llm_max_tokens: int = Field(1024, gt=0, description="cap on generated tokens per call")
    llm_temperature: float = Field(0.0, ge=0)
    llm_concurrency: int = Field(4, gt=0, description="parallel calls to an endpoint")
    llm_max_retries: int = Field(2, ge=0, description="repair retries on invalid output")
    llm_request_tries: int = Field(
        5, ge=1, description="tries of one request on a timeout, lost connection or 5xx/429"
    )
    llm_timeout: float = Field(180.0, gt=0, description="seconds per call")
    llm_context: int = Field(4096, gt=0, description="context window of a local model")
    llm_threads: int | None = Field(None, gt=0, description="CPU threads of a local model")
    llm_saved_prompts_mb: int = Field(
        512, ge=0, description="memory for a local model's saved prompt states; 0 keeps none"
    )
    llm_draft_tokens: int = Field(
        3, ge=0, le=16, description="tokens a local model guesses from its prompt per step; 0 none"
    )
    llm_cache: str | None = Field(None, description="response cache file; 'off' disables")
    model_dir: str = Field(
        "~/.cache/graphmind/models", description="where scripts/fetch_model.py puts GGUF files"
    )

    build: BuildOptions = Field(default_factory=BuildOptions, description="[build]")
    ask: AskOptions = Field(default_factory=AskOptions, description="[ask]")
    communities: CommunityOptions = Field(
        default_factory=CommunityOptions, description="[communities]"
    )
    prune: PruneOptions = Field(default_factory=PruneOptions, description="[prune]")
    eval: dict[str, Any] = Field(
        default_factory=dict, description="[eval]: EvalOptions fields, checked by graphmind.eval"
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, _TomlSource(settings_cls, _config_path()))

    def embedder_spec(self) -> EmbedderSpec:
        """The configured embedder as recorded in the store."""
        return parse_embedder(self.embedder, self.embedding_dim)

    @property
    def model_path(self) -> Path:
        """The directory holding fetched GGUF files (``model_dir``, ``~`` expanded)."""
        return Path(self.model_dir).expanduser()

    def state_dir(self) -> Path:
        """Where GraphMind keeps local state (LLM cache): beside an embedded store,
        else ``./.graphmind``."""
        target = self.store_target()
        if target.backend == "falkordb":
            return Path(target.location).parent
        return Path(".graphmind").resolve()

    def store_target(self) -> StoreTarget:
        """Parse the store URI into a backend and location."""
        return parse_store_uri(self.store)


@dataclass(frozen=True)
class StoreTarget:
    """Where the graph lives: ``falkordb`` with a file path, or ``neo4j`` with a URI."""

    backend: Literal["falkordb", "neo4j"]
    location: str


def parse_store_uri(uri: str) -> StoreTarget:
    """``falkordb-lite://PATH`` (relative or absolute) or a Neo4j URI; a Neo4j URI holding
    credentials is refused (they belong in the settings, which never print them)."""
    text = uri.strip()
    if text.startswith(FALKORDB_SCHEME):
        path = text[len(FALKORDB_SCHEME) :]
        if not path:
            raise ConfigError(f"store URI {uri!r} names no file, e.g. {DEFAULT_STORE}")
        return StoreTarget("falkordb", str(Path(path).expanduser().resolve()))
    if text.startswith(NEO4J_SCHEMES):
        if has_credentials(text):
            raise ConfigError(
                f"the store URI {public_url(text)} holds credentials: remove them and set "
                "GRAPHMIND_NEO4J_USER and GRAPHMIND_NEO4J_PASSWORD instead"
            )
        return StoreTarget("neo4j", text)
    raise ConfigError(
        f"unsupported store URI {public_url(text)!r}: use {FALKORDB_SCHEME}PATH or one of "
        + ", ".join(s + "HOST:PORT" for s in NEO4J_SCHEMES)
    )


def _check_names(cls: type[Any], table: dict[str, Any], where: str) -> None:
    """ConfigError naming a key of ``table`` that dataclass ``cls`` has no field for
    (recursing into sub-tables of nested dataclasses)."""
    hints = typing.get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(table) - names)
    if unknown:
        raise ConfigError(f"{where}]: unknown setting(s) {', '.join(unknown)}")
    for name, value in table.items():
        if dataclasses.is_dataclass(hints[name]) and isinstance(value, dict):
            _check_names(typing.cast(type[Any], hints[name]), value, f"{where}.{name}")


def _config_path() -> Path | None:
    explicit = os.environ.get(CONFIG_ENV)
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_file():
            raise ConfigError(f"{CONFIG_ENV} points at {path}, which is not a file")
        return path
    return Path(DEFAULT_CONFIG_FILE)


def load_settings(**overrides: Any) -> Settings:
    """Load settings, turning validation errors into one readable ConfigError."""
    clean = {k: v for k, v in overrides.items() if v is not None}
    try:
        return Settings(**clean)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        raise ConfigError(f"invalid configuration: {problems}") from exc
