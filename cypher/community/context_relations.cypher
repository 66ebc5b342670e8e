// The RELATED edges leaving those members; the ones that stay inside a community are
// kept there (graphmind/communities/context.py).
UNWIND $ids AS id
MATCH (a:Entity {id: id})-[r:RELATED]->(b:Entity)
RETURN a.id AS a, b.id AS b, r.predicate AS predicate, r.weight AS weight
