// The entity-to-entity edges of these entities, for the graph retriever's sub-graph:
// RELATED (weight: the triplets behind it) and SAME_AS (weight: the vector similarity),
// at most $per_entity per entity (the subquery's LIMIT stops reading a hub's edges there).
UNWIND $ids AS id
MATCH (e:Entity {id: id})
CALL {
  WITH e
  MATCH (e)-[r:RELATED|SAME_AS]-(n:Entity)
  RETURN n.id AS target, toFloat(coalesce(r.weight, r.similarity, 1.0)) AS weight
  LIMIT $per_entity
}
RETURN e.id AS source, target, weight
