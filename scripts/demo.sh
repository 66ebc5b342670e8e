#!/usr/bin/env bash
# The offline demo on the embedded store: installs GraphMind with the local-model
# extra, fetches the pinned offline model, builds the bundled sample corpus into
# ./.graphmind with it, and shows what is in the graph.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh local
.venv/bin/python scripts/fetch_model.py
export GRAPHMIND_STORE=${GRAPHMIND_STORE:-falkordb-lite://./.graphmind/graph.db}
.venv/bin/graphmind build graphmind/samples/physicists
.venv/bin/graphmind cypher "MATCH (a:Entity)-[r:RELATED]->(b:Entity) RETURN a.name AS subject, r.predicate AS predicate, b.name AS object ORDER BY subject LIMIT 15"
