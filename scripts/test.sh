#!/usr/bin/env bash
# The test command: installs everything it needs (the package with its local-model
# extra, the offline model, the Cypher linter), then runs ruff, mypy, the Neo4j query
# lint and the whole test suite, slow end-to-end tests included. Extra arguments go to
# pytest (e.g. `scripts/test.sh -m "not slow"`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh dev,local,eval
.venv/bin/python scripts/fetch_model.py                              # extraction tests
.venv/bin/python scripts/fetch_model.py --model qwen2.5-coder-1.5b   # the ask loop's test
npm ci --prefix scripts --no-audit --no-fund --loglevel=error
# Debian's chromium for the `graphmind show` browser test (skipped, with the reason, without it)
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/dev/null 2>&1 ||
    echo "could not install chromium: the browser test will be skipped" >&2
fi
.venv/bin/ruff check graphmind tests scripts
.venv/bin/ruff format --check graphmind tests scripts
.venv/bin/mypy
.venv/bin/python scripts/lint_neo4j.py
.venv/bin/python -m pytest "$@"
