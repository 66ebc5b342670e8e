// Near-duplicate entities: a SAME_AS link with the evidence for it.
UNWIND $rows AS row
MATCH (a:Entity {id: row.source})
MATCH (b:Entity {id: row.target})
MERGE (a)-[s:SAME_AS]->(b)
SET s.similarity = row.similarity, s.name_similarity = row.name_similarity
RETURN count(s) AS linked
