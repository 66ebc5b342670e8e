// Benchmark baseline: plain batched upsert of documents.
UNWIND $rows AS r
MERGE (d:Document {id: r.id})
SET d.source = r.source, d.title = r.title, d.sha256 = r.sha256
