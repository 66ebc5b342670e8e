// Retrieval funnel per query type over time (days since the epoch, UTC): decisions,
// candidates fused before the planner, left after it, shown with an evidence profile,
// excluded by the planner, and the share judged correct among those with feedback.
//   graphmind cypher audit/retrieval_funnel
MATCH (d:Decision)-[r:RETRIEVED_VIA]->(:Query)-[:OF_TYPE]->(qt:QueryType)
WITH qt, r.timestamp / 86400000 AS day, d, r
RETURN qt.label AS query_type, day, count(d) AS decisions,
       round(avg(r.candidates_pre)) AS fused, round(avg(r.candidates_post)) AS judged,
       sum(r.profiled) AS profiled, sum(size(r.excluded)) AS excluded,
       collect(DISTINCT r.config) AS configs,
       sum(CASE WHEN d.outcome = 'correct' THEN 1 ELSE 0 END) AS correct,
       sum(CASE WHEN d.outcome IN ['correct', 'incorrect'] THEN 1 ELSE 0 END) AS with_feedback
ORDER BY query_type, day
