// Benchmark baseline: plain batched MENTIONED_IN edges.
UNWIND $rows AS r
MATCH (t:Triplet {id: r.triplet_id})
MATCH (c:Chunk {id: r.chunk_id})
MERGE (t)-[:MENTIONED_IN]->(c)
