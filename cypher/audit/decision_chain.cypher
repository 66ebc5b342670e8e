// Decision chain (forward traversal): everything one answer rests on, round by round.
// For each step: the query, each retrieved passage with its document, how it was found,
// the verdict and reason of that round, whether the answer cited it; plus the agent,
// the outcome and the query type.
//   graphmind cypher audit/decision_chain -p id=<decision id>
//   Neo4j Browser: :param id => '<decision id>'
MATCH (a:Agent)-[decided:DECIDED]->(d:Decision {id: $id})-[:HAS_STEP]->(s:Step)
OPTIONAL MATCH (s)-[r:RETRIEVED]->(c:Chunk)-[:PART_OF]->(doc:Document)
OPTIONAL MATCH (d)-[:RETRIEVED_VIA]->(:Query)-[:OF_TYPE]->(qt:QueryType)
OPTIONAL MATCH (d)-[cited:CITED]->(c)
RETURN d.question AS question, d.answer AS answer, decided.outcome AS outcome,
       a.model AS model, qt.label AS query_type, s.round AS round, s.sub_query AS query,
       r.rank AS rank, doc.title AS document, left(c.text, 80) AS passage,
       r.sources AS found_by, r.verdict AS verdict, r.reason AS reason,
       cited IS NOT NULL AS cited
ORDER BY round, rank
