// One decision's properties, its agent and DECIDED edge, and the chunks it cited
// (with their documents' titles); no row for an unknown id.
MATCH (d:Decision {id: $id})
OPTIONAL MATCH (a:Agent)-[decided:DECIDED]->(d)
WITH d, a, decided
OPTIONAL MATCH (d)-[cited:CITED]->(c:Chunk)
OPTIONAL MATCH (c)-[:PART_OF]->(doc:Document)
WITH d, a, decided,
     collect(CASE WHEN c IS NULL THEN null
                  ELSE {rank: cited.rank, chunk_id: c.id, title: doc.title, text: c.text}
             END) AS cited
RETURN properties(d) AS decision, a.id AS agent_id, a.model AS agent_model,
       a.prompt_version AS prompt_version, decided.confidence AS decided_confidence,
       decided.timestamp AS decided_timestamp, decided.outcome AS decided_outcome, cited
