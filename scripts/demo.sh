#!/usr/bin/env bash
# The offline demo on the embedded store: installs GraphMind, creates the store in
# ./.graphmind and shows its state.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export GRAPHMIND_STORE=${GRAPHMIND_STORE:-falkordb-lite://./.graphmind/graph.db}
.venv/bin/graphmind doctor
.venv/bin/graphmind cypher "MATCH (m:GraphMindMeta) RETURN m.schema_version AS schema, m.embedder AS embedder, m.dimension AS dimension"
