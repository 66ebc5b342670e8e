// The communities a broad decision read, with their verdicts, best point first.
MATCH (d:Decision {id: $id})-[v:EVALUATED]->(co:Community)
RETURN co.id AS id, co.title AS title, co.level AS level, v.verdict AS verdict,
       v.reason AS reason, v.score AS score
ORDER BY v.score DESC, co.id
