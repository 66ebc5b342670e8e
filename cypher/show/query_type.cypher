// A query type for `graphmind show --query-type` (by id or label): its $limit latest
// queries and their decisions (one row with null query for a type without any).
MATCH (qt:QueryType)
WHERE qt.id = $type OR qt.label = $type
WITH qt ORDER BY qt.count DESC LIMIT 1
OPTIONAL MATCH (qt)<-[:OF_TYPE]-(q:Query)<-[:RETRIEVED_VIA]-(d:Decision)
RETURN qt.id AS query_type, qt.label AS type_label, qt.count AS type_count,
       q.id AS query, q.text AS query_text, d.id AS decision, d.question AS question,
       d.outcome AS outcome, d.created_at AS created_at
ORDER BY created_at DESC
LIMIT $limit
