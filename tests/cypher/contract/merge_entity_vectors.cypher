// Contract test: batched upsert of entity rows with a type and an embedding.
UNWIND $rows AS row
MERGE (e:Entity {id: row.id})
SET e.name = row.name, e.type = row.type, e.embedding = {{VEC}}(row.embedding)
RETURN count(e) AS written
