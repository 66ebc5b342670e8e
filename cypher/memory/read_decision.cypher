// One decision's properties, its agent and DECIDED edge, the chunks it cited (with
// their documents' titles) and its retrieval (RETRIEVED_VIA, the query and its type);
// no row for an unknown id. (Nothing null is collected: a Neo4j warning.)
MATCH (d:Decision {id: $id})
OPTIONAL MATCH (a:Agent)-[decided:DECIDED]->(d)
OPTIONAL MATCH (d)-[via:RETRIEVED_VIA]->(q:Query)
OPTIONAL MATCH (q)-[:OF_TYPE]->(qt:QueryType)
WITH d, a, decided, via, qt
OPTIONAL MATCH (d)-[cited:CITED]->(c:Chunk)
OPTIONAL MATCH (c)-[:PART_OF]->(doc:Document)
WITH d, a, decided, via, qt,
     collect(CASE WHEN c IS NULL THEN []
                  ELSE [{rank: cited.rank, chunk_id: c.id, title: doc.title, text: c.text}]
             END) AS found
WITH d, a, decided, via, qt, reduce(cited = [], x IN found | cited + x) AS cited
RETURN properties(d) AS decision, a.id AS agent_id, a.model AS agent_model,
       a.prompt_version AS prompt_version, decided.confidence AS decided_confidence,
       decided.timestamp AS decided_timestamp, decided.outcome AS decided_outcome, cited,
       CASE WHEN via IS NULL THEN null ELSE properties(via) END AS retrieval,
       qt.id AS query_type_id, qt.label AS query_type_label, qt.count AS query_type_size
