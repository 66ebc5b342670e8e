// Neo4j 5's form of cypher/ask/graph_entity_edges.cypher: a scoped CALL (e) {} (importing by
// WITH is deprecated there, and FalkorDB knows only that form).
// The entity-to-entity edges of these entities, for the graph retriever's sub-graph:
// RELATED (weight: the triplets behind it) and SAME_AS (weight: the vector similarity),
// at most $per_entity per entity (the subquery's LIMIT stops reading a hub's edges there).
UNWIND $ids AS id
MATCH (e:Entity {id: id})
CALL (e) {
  MATCH (e)-[r:RELATED|SAME_AS]-(n:Entity)
  RETURN n.id AS target, toFloat(coalesce(r.weight, r.similarity, 1.0)) AS weight
  LIMIT $per_entity
}
RETURN e.id AS source, target, weight
