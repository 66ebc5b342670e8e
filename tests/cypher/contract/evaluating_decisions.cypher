// Contract test: decisions that each evaluate every chunk given (created_at increasing).
UNWIND $rows AS row
CREATE (d:Decision {id: row.id, created_at: row.created_at})
WITH d
UNWIND $chunks AS id
MATCH (c:Chunk {id: id})
CREATE (d)-[:EVALUATED {verdict: 'used', reason: 'r'}]->(c)
RETURN count(*) AS written
