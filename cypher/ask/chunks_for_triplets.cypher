// The chunks that mention these triplets.
UNWIND $ids AS id
MATCH (t:Triplet {id: id})-[:MENTIONED_IN]->(c:Chunk)
RETURN t.id AS triplet, c.id AS chunk
