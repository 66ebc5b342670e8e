// One decision for `graphmind show`: the decision, the agent that decided it, and the
// query and query type it was retrieved through (null when absent).
MATCH (d:Decision {id: $id})
OPTIONAL MATCH (a:Agent)-[:DECIDED]->(d)
OPTIONAL MATCH (d)-[:RETRIEVED_VIA]->(q:Query)-[:OF_TYPE]->(qt:QueryType)
RETURN d.id AS id, d.question AS question, d.answer AS answer,
       d.sufficiency AS sufficiency, d.confidence AS confidence, d.outcome AS outcome,
       d.created_at AS created_at, a.id AS agent, a.model AS model,
       q.id AS query, q.text AS query_text, qt.id AS query_type, qt.label AS type_label,
       qt.count AS type_count
LIMIT 1
