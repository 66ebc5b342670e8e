// The neighbours of the given entities (RELATED either way) and their top-level
// communities (null when they have none).
UNWIND $ids AS id
MATCH (:Entity {id: id})-[:RELATED]-(n:Entity)
WITH DISTINCT n
OPTIONAL MATCH (c:Community {level: 0})-[:SUMMARY_FOR]->(n)
RETURN n.id AS entity, c.id AS community
