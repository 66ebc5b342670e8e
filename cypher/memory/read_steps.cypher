// A decision's steps in round order, one row per retrieved chunk in rank order (one
// row with null chunk for a step that retrieved nothing), each with the verdict the
// judge gave it in that step (stored on the RETRIEVED edge).
MATCH (d:Decision {id: $id})-[:HAS_STEP]->(s:Step)
OPTIONAL MATCH (s)-[r:RETRIEVED]->(c:Chunk)
OPTIONAL MATCH (c)-[:PART_OF]->(doc:Document)
RETURN properties(s) AS step, c.id AS chunk_id, doc.title AS title, c.text AS text,
       r.rank AS rank, r.score AS score, r.sources AS sources, r.verdict AS verdict,
       r.reason AS reason, r.confidence_delta AS confidence_delta
ORDER BY s.round, r.rank
