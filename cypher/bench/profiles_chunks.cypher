// Benchmark (scripts/bench_profiles.py): synthetic chunks, id and text only (no
// embedding, no document), created in one batch per query.
UNWIND $rows AS r
CREATE (:Chunk {id: r.id, text: r.text})
