// The planner's exclusions from the counts kept on write: of the given chunks, those that
// correct decisions of this query type rejected more often than $threshold with at least
// $min_support evaluations (the TYPE_STATS edge from the type), and those whose stats are
// stale (read by traversal instead). Equal to memory/planner_exclusions (the traversal).
MATCH (qt:QueryType {id: $query_type})
UNWIND $ids AS id
MATCH (c:Chunk {id: id})-[:HAS_STATS]->(s:EvidenceStats)
OPTIONAL MATCH (qt)-[t:TYPE_STATS]->(c)
WITH id, s, t
WHERE s.stale = true
   OR (t.correct >= $min_support
       AND CASE WHEN t.correct > 0 THEN toFloat(t.rejected) / t.correct ELSE 0.0 END
           > $threshold)
RETURN id, t.correct AS support, t.rejected AS rejected, s.stale = true AS stale
ORDER BY id
