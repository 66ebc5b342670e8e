// Entities mentioned by triplets of the same chunk, weighted by the number of chunks.
MATCH (a:Entity)<-[:SUBJECT|OBJECT]-(:Triplet)-[:MENTIONED_IN]->(c:Chunk)
      <-[:MENTIONED_IN]-(:Triplet)-[:SUBJECT|OBJECT]->(b:Entity)
WHERE a.id < b.id
WITH a, b, count(DISTINCT c) AS weight
RETURN a.id AS source, b.id AS target, toFloat(weight) AS weight
