// The planner's exclusions: of the given chunks, those that correct decisions of this
// query type rejected more often than $threshold, with at least $min_support
// evaluations (a backward traversal from each candidate, like the profiles).
UNWIND $ids AS id
MATCH (c:Chunk {id: id})<-[v:EVALUATED]-(d:Decision)
WHERE d.outcome = 'correct' AND d.query_type = $query_type
WITH id, count(v) AS support,
     sum(CASE WHEN v.verdict = 'rejected' THEN 1 ELSE 0 END) AS rejected
WHERE support >= $min_support AND toFloat(rejected) / support > $threshold
RETURN id, support, rejected
ORDER BY id
