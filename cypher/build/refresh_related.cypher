// For a batch of pending entities: drop their markers, rebuild their outgoing RELATED
// edges from the triplets they are the subject of (one edge per object and predicate,
// weight = number of triplets). The old edges are deleted first, so CREATE is safe.
UNWIND $ids AS id
OPTIONAL MATCH (p:Pending {id: id})
DELETE p
WITH DISTINCT id
MATCH (a:Entity {id: id})
OPTIONAL MATCH (a)-[old:RELATED]->()
DELETE old
WITH DISTINCT a
MATCH (a)<-[:SUBJECT]-(t:Triplet)-[:OBJECT]->(b:Entity)
WITH a, b, t
ORDER BY t.id
WITH a, b, t.predicate AS predicate, collect(t.id) AS triplet_ids
CREATE (a)-[r:RELATED {predicate: predicate, weight: size(triplet_ids), triplet_ids: triplet_ids}]->(b)
RETURN count(r) AS related
