// The given entities' RELATED neighbours (either way) with the tie's weight, and the
// communities each neighbour is a member of: [level, id, size], one per level.
UNWIND $ids AS id
MATCH (:Entity {id: id})-[r:RELATED]-(n:Entity)
RETURN id AS entity, n.id AS neighbour, coalesce(r.weight, 1.0) AS weight,
       [(c:Community)-[:SUMMARY_FOR]->(n) | [c.level, c.id, c.size]] AS communities
