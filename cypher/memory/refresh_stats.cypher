// Recompute the EvidenceStats and TYPE_STATS edges of the given chunks from their
// incoming EVALUATED edges (the backward traversal, the source of truth), and clear their
// stale mark: what pruning and the first upgrade of an older store run. Incoming counts
// every evaluation, correct and used_correct those of correct decisions; the window
// holds the $capacity most recent correct ones, newest first.
UNWIND $ids AS id
MATCH (c:Chunk {id: id})
MERGE (s:EvidenceStats {id: c.id})
MERGE (c)-[:HAS_STATS]->(s)
ON CREATE SET s.incoming = 0, s.correct = 0, s.used_correct = 0, s.at = [], s.decisions = [],
              s.verdicts = [], s.reasons = [], s.stale = null
WITH c, s
OPTIONAL MATCH (c)<-[v:EVALUATED]-(d:Decision)
WITH c, s, v, d
ORDER BY d.created_at DESC, d.id DESC
WITH c, s, count(v) AS incoming,
     collect(CASE WHEN d.outcome = 'correct'
                  THEN {at: d.created_at, id: d.id, verdict: v.verdict,
                        reason: coalesce(v.reason, '')} END) AS correct,
     sum(CASE WHEN d.outcome = 'correct' AND v.verdict = 'used' THEN 1 ELSE 0 END)
       AS used_correct
WITH c, s, incoming, used_correct, size(correct) AS n, correct[0..$capacity] AS window
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
