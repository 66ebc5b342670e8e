// Evidence history (backward traversal): every decision that judged one passage, newest
// first, with its verdict, reason, the decision's outcome and query type. This is what
// an evidence profile is computed from (profiles keep only outcome = 'correct').
//   graphmind cypher audit/evidence_history -p chunk=<chunk id>
//   Neo4j Browser: :param chunk => '<chunk id>'
MATCH (c:Chunk {id: $chunk})<-[v:EVALUATED]-(d:Decision)
OPTIONAL MATCH (d)-[:RETRIEVED_VIA]->(:Query)-[:OF_TYPE]->(qt:QueryType)
RETURN d.created_at AS at, d.id AS decision, d.question AS question,
       d.outcome AS outcome, v.step AS round, v.verdict AS verdict, v.reason AS reason,
       v.confidence_delta AS confidence_delta, qt.label AS query_type
ORDER BY at DESC
