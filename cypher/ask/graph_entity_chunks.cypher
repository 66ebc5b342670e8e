// The chunks stating a triplet of each of these entities, at most $per_entity each (the
// passage nodes the graph retriever reaches from an entity).
UNWIND $ids AS id
MATCH (e:Entity {id: id})
WITH e, [(e)<-[:SUBJECT|OBJECT]-(:Triplet)-[:MENTIONED_IN]->(c:Chunk) | c.id][0..$per_entity] AS chunks
UNWIND chunks AS chunk
RETURN DISTINCT e.id AS entity, chunk
