// How each retrieval configuration has fared on one query type: decisions with
// feedback, and how many of them were correct.
MATCH (d:Decision {query_type: $query_type})-[r:RETRIEVED_VIA]->(:Query)
WHERE d.outcome IN ['correct', 'incorrect']
RETURN r.config AS config, count(d) AS support,
       sum(CASE WHEN d.outcome = 'correct' THEN 1 ELSE 0 END) AS correct
ORDER BY config
