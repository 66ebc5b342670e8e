// One chunk's verdict history for `graphmind show --chunk`: the $limit latest decisions
// that judged it, with verdict, reason, whether they cited it, and their query type.
MATCH (c:Chunk {id: $chunk})<-[e:EVALUATED]-(d:Decision)
OPTIONAL MATCH (d)-[r:CITED]->(c)
OPTIONAL MATCH (d)-[:RETRIEVED_VIA]->(:Query)-[:OF_TYPE]->(qt:QueryType)
RETURN d.id AS decision, d.question AS question, d.outcome AS outcome,
       d.created_at AS created_at, e.step AS step, e.verdict AS verdict, e.reason AS reason,
       r IS NOT NULL AS cited, qt.id AS query_type, qt.label AS type_label
ORDER BY created_at DESC
LIMIT $limit
