// Contract test: weighted RELATED edges between existing entities.
UNWIND $rows AS row
MATCH (a:Entity {id: row.source})
MATCH (b:Entity {id: row.target})
MERGE (a)-[r:RELATED]->(b)
SET r.weight = row.weight
RETURN count(r) AS written
