// For each community, the chunks that mention its members most often (bounded).
UNWIND $ids AS id
MATCH (co:Community {id: id})-[:SUMMARY_FOR]->(:Entity)<-[:SUBJECT|OBJECT]-(t:Triplet)
      -[:MENTIONED_IN]->(c:Chunk)
WITH co, c, count(t) AS mentions
ORDER BY mentions DESC, c.id
WITH co, collect(c.id)[0..$per_community] AS chunks
UNWIND chunks AS chunk
RETURN co.id AS community, chunk
