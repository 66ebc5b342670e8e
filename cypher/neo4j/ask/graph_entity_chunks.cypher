// Neo4j 5's form of cypher/ask/graph_entity_chunks.cypher: a scoped CALL (e) {} (importing by
// WITH is deprecated there, and FalkorDB knows only that form).
// The chunks stating a triplet of each of these entities, at most $per_entity each (the
// passage nodes the graph retriever reaches from an entity). The subquery's LIMIT stops
// reading a hub's triplets after $per_entity distinct chunks instead of listing them all
// first (FalkorDB returns a subquery's chunks distinct anyway; DISTINCT says so on both).
// One row per entity with its chunks listed: a row per chunk cost Neo4j's driver a
// quarter more time.
UNWIND $ids AS id
MATCH (e:Entity {id: id})
CALL (e) {
  MATCH (e)<-[:SUBJECT|OBJECT]-(:Triplet)-[:MENTIONED_IN]->(c:Chunk)
  RETURN DISTINCT c.id AS chunk
  LIMIT $per_entity
}
RETURN e.id AS entity, collect(chunk) AS chunks
