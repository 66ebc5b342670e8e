// Benchmark baseline: plain batched NEXT edges between consecutive chunks.
UNWIND $rows AS r
MATCH (a:Chunk {id: r.source})
MATCH (b:Chunk {id: r.target})
MERGE (a)-[:NEXT]->(b)
