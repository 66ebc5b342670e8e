// Benchmark baseline: plain batched upsert of chunks with their document edge.
UNWIND $rows AS r
MATCH (d:Document {id: r.document_id})
MERGE (c:Chunk {id: r.id})
SET c.text = r.text, c.position = r.position, c.tokens = r.tokens,
    c.embedding = {{VEC}}(r.embedding)
MERGE (c)-[:PART_OF]->(d)
