// The entities changed since the last community run: whether each is still there and
// its top-level community (null for a new entity).
MATCH (m:CommunityChange)
WITH DISTINCT m.id AS id
OPTIONAL MATCH (e:Entity {id: id})
OPTIONAL MATCH (c:Community {level: 0})-[:SUMMARY_FOR]->(e)
RETURN id, e IS NOT NULL AS present, c.id AS community
