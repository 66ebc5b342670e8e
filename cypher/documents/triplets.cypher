// The triplets mentioned in these chunks: how many chunks outside them mention each
// too, and the entities each joins.
UNWIND $chunks AS cid
MATCH (t:Triplet)-[:MENTIONED_IN]->(:Chunk {id: cid})
WITH DISTINCT t
OPTIONAL MATCH (t)-[:MENTIONED_IN]->(other:Chunk)
WHERE NOT other.id IN $chunks
WITH t, count(DISTINCT other) AS outside
OPTIONAL MATCH (t)-[:SUBJECT|OBJECT]->(e:Entity)
RETURN t.id AS id, outside, collect(DISTINCT e.id) AS entities
