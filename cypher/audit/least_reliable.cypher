// Least reliable evidence: passages most often judged in decisions later confirmed
// correct, ranked by reliability R = used in a correct decision / all evaluations,
// lowest first, with at least min_support evaluations in correct decisions (edit it).
//   graphmind cypher audit/least_reliable
WITH 3 AS min_support
MATCH (c:Chunk)<-[v:EVALUATED]-(d:Decision)
WITH min_support, c, count(v) AS evaluations,
     sum(CASE WHEN d.outcome = 'correct' THEN 1 ELSE 0 END) AS in_correct,
     sum(CASE WHEN d.outcome = 'correct' AND v.verdict = 'used' THEN 1 ELSE 0 END)
       AS used_correct,
     sum(CASE WHEN d.outcome = 'correct' AND v.verdict = 'rejected' THEN 1 ELSE 0 END)
       AS rejected_correct
WHERE in_correct >= min_support
MATCH (c)-[:PART_OF]->(doc:Document)
RETURN c.id AS chunk, doc.title AS document, left(c.text, 80) AS passage, evaluations,
       in_correct, used_correct, rejected_correct,
       round(1000.0 * used_correct / evaluations) / 1000.0 AS reliability
ORDER BY reliability, evaluations DESC
LIMIT 25
