// Contract test: batched upsert of chunk rows with embeddings.
UNWIND $rows AS row
MERGE (c:Chunk {id: row.id})
SET c.text = row.text, c.position = row.position, c.embedding = {{VEC}}(row.embedding)
RETURN count(c) AS written
