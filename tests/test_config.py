"""Settings: store URIs, environment, graphmind.toml."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmind.config import load_settings, parse_store_uri
from graphmind.core.errors import ConfigError
from graphmind.embed.spec import parse_embedder


def test_store_uri_decides_the_backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    default = load_settings().store_target()
    assert default.backend == "falkordb"
    assert default.location == str(tmp_path / ".graphmind" / "graph.db")
    assert parse_store_uri("falkordb-lite:///data/g.db").location == "/data/g.db"
    for uri in ("bolt://localhost:7687", "neo4j://db:7687", "neo4j+s://x.databases.neo4j.io"):
        assert parse_store_uri(uri).backend == "neo4j"
    with pytest.raises(ConfigError, match="unsupported store URI"):
        parse_store_uri("postgres://x")
    with pytest.raises(ConfigError, match="names no file"):
        parse_store_uri("falkordb-lite://")


def test_environment_overrides_toml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "graphmind.toml").write_text(
        'store = "bolt://toml:7687"\n[llm]\nmodel = "qwen"\nbase_url = "http://localhost:8080/v1"\n'
        '[neo4j]\nuser = "reader"\n'
    )
    settings = load_settings()
    assert settings.store == "bolt://toml:7687"
    assert settings.llm_model == "qwen" and settings.neo4j_user == "reader"
    monkeypatch.setenv("GRAPHMIND_STORE", "neo4j://env:7687")
    monkeypatch.setenv("GRAPHMIND_LLM_MODEL", "other")
    settings = load_settings()
    assert settings.store == "neo4j://env:7687" and settings.llm_model == "other"
    assert load_settings(store="falkordb-lite://x.db").store == "falkordb-lite://x.db"


def test_bad_configuration_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "graphmind.toml").write_text('stroe = "typo"\n')
    with pytest.raises(ConfigError, match=r"unknown setting.*stroe"):
        load_settings()
    (tmp_path / "graphmind.toml").write_text("store = \n")
    with pytest.raises(ConfigError, match="cannot read"):
        load_settings()
    (tmp_path / "graphmind.toml").unlink()
    monkeypatch.setenv("GRAPHMIND_EMBEDDING_DIM", "-3")
    with pytest.raises(ConfigError, match="embedding_dim"):
        load_settings()
    monkeypatch.setenv("GRAPHMIND_CONFIG", str(tmp_path / "missing.toml"))
    with pytest.raises(ConfigError, match="not a file"):
        load_settings()


def test_embedder_specs() -> None:
    spec = parse_embedder("all-MiniLM-L6-v2")
    assert (spec.provider, spec.dimension, spec.name) == (
        "onnx",
        384,
        "onnx:all-MiniLM-L6-v2",
    )
    assert parse_embedder("st:all-MiniLM-L6-v2").name == "sentence-transformers:all-MiniLM-L6-v2"
    assert parse_embedder("openai:text-embedding-3-small").dimension == 1536
    assert parse_embedder("st:my/custom-model", 512).dimension == 512
    # a local model that is not there is named as missing, not as a missing dimension
    with pytest.raises(ConfigError, match="'my/custom-model' is not available locally"):
        parse_embedder("my/custom-model")
    with pytest.raises(ConfigError, match="set GRAPHMIND_EMBEDDING_DIM to it"):
        parse_embedder("openai:my-endpoint-model")
    with pytest.raises(ConfigError, match="unknown embedder provider"):
        parse_embedder("cohere:embed-v3")
