// The subject and object entities of these triplets (the facts nearest the query), with
// how many distinct chunks state a triplet of each entity, capped at $cap: the graph retriever
// seeds personalized PageRank at them, each divided by that count (rare entities weigh
// more, as HippoRAG's node specificity). The subquery's LIMIT stops counting at $cap.
UNWIND $ids AS id
MATCH (t:Triplet {id: id})-[:SUBJECT|OBJECT]->(e:Entity)
WITH DISTINCT t.id AS triplet, e
CALL {
  WITH e
  MATCH (e)<-[:SUBJECT|OBJECT]-(:Triplet)-[:MENTIONED_IN]->(c:Chunk)
  WITH DISTINCT c LIMIT $cap
  RETURN count(c) AS chunks
}
RETURN triplet, e.id AS entity, chunks
