// Benchmark baseline: plain batched RELATED edges (aggregated in Python beforehand).
UNWIND $rows AS r
MATCH (a:Entity {id: r.source})
MATCH (b:Entity {id: r.target})
MERGE (a)-[x:RELATED {predicate: r.predicate}]->(b)
SET x.weight = r.weight, x.triplet_ids = r.triplet_ids
