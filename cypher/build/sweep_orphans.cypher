// For a batch of pending entities: delete their triplets that no chunk mentions any
// more, then the entities themselves when no triplet refers to them. Nothing null is
// aggregated (a Neo4j warning): a missing triplet is collected as an empty list.
UNWIND $ids AS id
MATCH (e:Entity {id: id})
OPTIONAL MATCH (e)<-[:SUBJECT|OBJECT]-(t:Triplet)
WHERE NOT (t)-[:MENTIONED_IN]->(:Chunk)
WITH e, collect(DISTINCT CASE WHEN t IS NULL THEN [] ELSE [t] END) AS found
WITH e, reduce(orphans = [], x IN found | orphans + x) AS orphans
FOREACH (t IN orphans | DETACH DELETE t)
WITH e, size([(e)<-[:SUBJECT|OBJECT]-(kept:Triplet) | kept]) AS mentions
WHERE mentions = 0
DETACH DELETE e
RETURN count(*) AS deleted
