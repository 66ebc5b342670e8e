// Contract test: entity graph projection (isolated entities have a null target).
MATCH (a:Entity)
OPTIONAL MATCH (a)-[r:RELATED]->(b:Entity)
RETURN a.id AS source, b.id AS target, r.weight AS weight
