// Contract test: batched upsert of entity rows (name only).
UNWIND $rows AS row
MERGE (e:Entity {id: row.id})
SET e.name = row.name
RETURN count(e) AS written
