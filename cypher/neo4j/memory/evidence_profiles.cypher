// Neo4j: as cypher/memory/evidence_profiles.cypher (the traversal that defines a profile),
// in memory bounded per chunk whatever its in-degree: the counts are aggregated as they
// stream and only the newest correct evaluations the sample can need are sorted out
// (ORDER BY ... LIMIT), not every one collected (20 hot chunks at 10M edges would
// exceed the default transaction memory).
UNWIND $ids AS id
MATCH (c:Chunk {id: id})
CALL (c) {
  MATCH (c)<-[v:EVALUATED]-(d:Decision)
  RETURN count(v) AS incoming,
         sum(CASE WHEN d.outcome = 'correct' THEN 1 ELSE 0 END) AS evaluated,
         sum(CASE WHEN d.outcome = 'correct' AND v.verdict = 'used' THEN 1 ELSE 0 END)
           AS used_correct
}
WITH id, c, incoming, evaluated, used_correct
WHERE evaluated > 0
CALL (c) {
  MATCH (c)<-[v:EVALUATED]-(d:Decision)
  WHERE d.outcome = 'correct'
  WITH v, d
  ORDER BY d.created_at DESC, d.id DESC
  LIMIT CASE WHEN $recent > $tmax THEN $recent ELSE $tmax + 1 END
  RETURN collect({verdict: v.verdict, reason: v.reason}) AS newest
}
RETURN id, incoming, used_correct, evaluated,
       CASE WHEN evaluated > $tmax THEN newest[0..$recent] ELSE newest END AS sample
