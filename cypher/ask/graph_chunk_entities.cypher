// The entities of the triplets each of these chunks states (the passage nodes' edges
// into the entity graph, for the graph retriever's sub-graph), one row per chunk.
UNWIND $ids AS id
MATCH (c:Chunk {id: id})<-[:MENTIONED_IN]-(:Triplet)-[:SUBJECT|OBJECT]->(e:Entity)
RETURN c.id AS chunk, collect(DISTINCT e.id) AS entities
