// The weighted RELATED edges within two hops of the seed entities, bounded by $limit,
// for a client-side personalized PageRank.
UNWIND $seeds AS seed
MATCH (s:Entity {id: seed})-[:RELATED*0..1]-(m:Entity)-[r:RELATED]-(n:Entity)
WITH DISTINCT m.id AS source, n.id AS target, r.weight AS weight
LIMIT $limit
RETURN source, target, weight
