// The chunks that mention each of these entities, through their triplets.
UNWIND $ids AS id
MATCH (e:Entity {id: id})<-[:SUBJECT|OBJECT]-(:Triplet)-[:MENTIONED_IN]->(c:Chunk)
RETURN DISTINCT e.id AS entity, c.id AS chunk
