#!/usr/bin/env bash
# The test command: installs everything it needs, then runs lint, types, the Neo4j
# query lint and the test suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh dev
npm ci --prefix scripts --no-audit --no-fund --loglevel=error
.venv/bin/ruff check graphmind tests scripts
.venv/bin/ruff format --check graphmind tests scripts
.venv/bin/mypy
.venv/bin/python scripts/lint_neo4j.py
.venv/bin/python -m pytest "$@"
