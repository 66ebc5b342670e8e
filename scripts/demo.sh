#!/usr/bin/env bash
# The offline demo on the embedded store: installs GraphMind with the local-model
# extra, fetches the pinned offline model (Qwen2.5-Coder-1.5B: the 0.5B default is
# fine for extraction but too weak to judge evidence), builds the bundled sample
# corpus into ./.graphmind (its graph by spaCy, --extract fast: no LLM), shows what is in
# the graph and asks it questions.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh local
.venv/bin/python scripts/fetch_model.py --model qwen2.5-coder-1.5b
export GRAPHMIND_STORE=${GRAPHMIND_STORE:-falkordb-lite://./.graphmind/graph.db}
export GRAPHMIND_LLM_MODEL=${GRAPHMIND_LLM_MODEL:-qwen2.5-coder-1.5b}
.venv/bin/python -m graphmind.smoke   # a crash of llama.cpp is reported, not suffered
.venv/bin/graphmind build graphmind/samples/physicists --chunk-size 256 --extract fast
.venv/bin/graphmind cypher "MATCH (a:Entity)-[r:RELATED]->(b:Entity) RETURN a.name AS subject, r.predicate AS predicate, b.name AS object ORDER BY subject LIMIT 15"
.venv/bin/graphmind ask "Who did Lise Meitner work with in Berlin?" --trace
# What the graph finds and vector search misses: with two passages, naive's vector top-2
# are Lise Meitner's and Marie Curie's pages (the question's words); the graph walk goes
# from the fact (Lise Meitner, worked with, Otto Hahn) to Otto Hahn's page, which states
# his 1944 Nobel Prize in Chemistry.
question="Which prize did the chemist Lise Meitner worked with receive?"
.venv/bin/graphmind ask "$question" --k 2 --mode naive
.venv/bin/graphmind ask "$question" --k 2
