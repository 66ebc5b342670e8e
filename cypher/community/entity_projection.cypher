// The entity graph for community detection and PageRank: every entity, and its
// weighted RELATED edges (isolated entities come with a null target).
MATCH (a:Entity)
OPTIONAL MATCH (a)-[r:RELATED]->(b:Entity)
RETURN a.id AS source, b.id AS target, r.weight AS weight
