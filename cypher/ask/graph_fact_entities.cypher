// The subject and object entities of these triplets (the facts nearest the query), with
// how many chunks state a triplet of each entity, capped at $cap: the graph retriever
// seeds personalized PageRank at them, each divided by that count (rare entities weigh
// more, as HippoRAG's node specificity).
UNWIND $ids AS id
MATCH (t:Triplet {id: id})-[:SUBJECT|OBJECT]->(e:Entity)
WITH DISTINCT t.id AS triplet, e
WITH triplet, e, [(e)<-[:SUBJECT|OBJECT]-(:Triplet)-[:MENTIONED_IN]->(c:Chunk) | c.id][0..$cap] AS chunks
RETURN triplet, e.id AS entity, size(chunks) AS chunks
