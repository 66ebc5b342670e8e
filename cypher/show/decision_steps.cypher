// A decision's steps for `graphmind show`: one row per step and retrieved chunk (a null
// chunk for a step that retrieved nothing), with that round's verdict on the chunk.
MATCH (d:Decision {id: $id})-[:HAS_STEP]->(s:Step)
OPTIONAL MATCH (s)-[r:RETRIEVED]->(c:Chunk)
RETURN s.id AS step, s.round AS round, s.sub_query AS query, s.sufficiency AS sufficiency,
       c.id AS chunk, r.rank AS rank, r.verdict AS verdict
ORDER BY round, rank
