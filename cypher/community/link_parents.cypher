// Point each community at its current parent, dropping any other PARENT edge.
UNWIND $rows AS row
MATCH (c:Community {id: row.id})
MATCH (p:Community {id: row.parent})
OPTIONAL MATCH (c)-[old:PARENT]->(other:Community)
WHERE other.id <> row.parent
DELETE old
MERGE (c)-[:PARENT]->(p)
RETURN count(*) AS linked
