// The planner's exclusions: of the given chunks, those that correct decisions of this
// query type rejected more often than $threshold, with at least $min_support
// evaluations (a backward traversal from each candidate, like the profiles).
// (The WITH before the filter keeps FalkorDB from starting at the Decision.query_type
// index and scanning every decision of the type for each candidate: 1.04 s -> 0.28 s at
// 1M EVALUATED edges.)
UNWIND $ids AS id
MATCH (c:Chunk {id: id})<-[v:EVALUATED]-(d:Decision)
WITH id, v, d
WHERE d.outcome = 'correct' AND d.query_type = $query_type
WITH id, count(v) AS support,
     sum(CASE WHEN v.verdict = 'rejected' THEN 1 ELSE 0 END) AS rejected
WHERE support >= $min_support AND toFloat(rejected) / support > $threshold
RETURN id, support, rejected
ORDER BY id
