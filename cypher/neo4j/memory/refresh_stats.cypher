// Neo4j: as cypher/memory/refresh_stats.cypher, in memory bounded per chunk whatever its
// in-degree: the counts are aggregated as they stream and the window is a top-$capacity
// (ORDER BY ... LIMIT), not a collect of every correct evaluation (a batch of hot chunks
// at 10M edges went over the default transaction memory).
UNWIND $ids AS id
MATCH (c:Chunk {id: id})
MERGE (s:EvidenceStats {id: c.id})
MERGE (c)-[:HAS_STATS]->(s)
ON CREATE SET s.incoming = 0, s.correct = 0, s.used_correct = 0, s.at = [], s.decisions = [],
              s.verdicts = [], s.reasons = [], s.stale = null
WITH c, s
CALL (c) {
  MATCH (c)<-[v:EVALUATED]-(d:Decision)
  RETURN count(v) AS incoming,
         sum(CASE WHEN d.outcome = 'correct' THEN 1 ELSE 0 END) AS n,
         sum(CASE WHEN d.outcome = 'correct' AND v.verdict = 'used' THEN 1 ELSE 0 END)
           AS used_correct
}
CALL (c) {
  MATCH (c)<-[v:EVALUATED]-(d:Decision)
  WHERE d.outcome = 'correct'
  WITH v, d
  ORDER BY d.created_at DESC, d.id DESC
  LIMIT $capacity
  RETURN collect({at: d.created_at, id: d.id, verdict: v.verdict,
                  reason: coalesce(v.reason, '')}) AS window
}
SET s.incoming = incoming, s.correct = n, s.used_correct = used_correct,
    s.at = [x IN window | x.at], s.decisions = [x IN window | x.id],
    s.verdicts = [x IN window | x.verdict], s.reasons = [x IN window | x.reason],
    s.stale = null
WITH c
OPTIONAL MATCH (c)<-[old:TYPE_STATS]-(:QueryType)
WITH c, collect(old) AS olds
FOREACH (x IN olds | DELETE x)
WITH c
MATCH (c)<-[v:EVALUATED]-(d:Decision)
WHERE d.outcome = 'correct' AND d.query_type IS NOT NULL
WITH c, d.query_type AS type, count(v) AS correct,
     sum(CASE WHEN v.verdict = 'rejected' THEN 1 ELSE 0 END) AS rejected
MATCH (qt:QueryType {id: type})
CREATE (qt)-[:TYPE_STATS {correct: correct, rejected: rejected}]->(c)
RETURN count(*) AS type_stats
