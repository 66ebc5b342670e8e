// For a batch of pending entities: delete their triplets that no chunk mentions any
// more, then the entities themselves when no triplet refers to them.
UNWIND $ids AS id
MATCH (e:Entity {id: id})
OPTIONAL MATCH (e)<-[:SUBJECT|OBJECT]-(t:Triplet)
WHERE NOT (t)-[:MENTIONED_IN]->(:Chunk)
WITH e, collect(DISTINCT t) AS orphans
FOREACH (t IN orphans | DETACH DELETE t)
WITH e
OPTIONAL MATCH (e)<-[:SUBJECT|OBJECT]-(kept:Triplet)
WITH e, count(kept) AS mentions
WHERE mentions = 0
DETACH DELETE e
RETURN count(*) AS deleted
