// The entities stated in these chunks (through their triplets).
UNWIND $ids AS id
MATCH (c:Chunk {id: id})<-[:MENTIONED_IN]-(:Triplet)-[:SUBJECT|OBJECT]->(e:Entity)
RETURN DISTINCT e.id AS id, e.name AS name
