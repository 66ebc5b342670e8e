// Rejection themes: passages whose rejections in correct decisions mostly give the
// same reason (compared case-insensitively): share of the top reason >= 0.6 with at
// least 3 rejections (edit them). A theme like "another movie" or "wrong year" says
// why the retriever keeps offering the passage and what the planner will learn.
//   graphmind cypher audit/rejection_themes
WITH 3 AS min_rejections, 0.6 AS min_share
MATCH (c:Chunk)<-[v:EVALUATED {verdict: 'rejected'}]-(d:Decision {outcome: 'correct'})
WITH min_rejections, min_share, c, toLower(trim(v.reason)) AS reason, count(*) AS n
ORDER BY n DESC
WITH min_rejections, min_share, c, collect({reason: reason, n: n}) AS reasons,
     sum(n) AS rejections
WHERE rejections >= min_rejections AND toFloat(reasons[0].n) / rejections >= min_share
MATCH (c)-[:PART_OF]->(doc:Document)
RETURN c.id AS chunk, doc.title AS document, rejections, reasons[0].reason AS theme,
       round(100.0 * reasons[0].n / rejections) AS theme_pct, size(reasons) AS reasons
ORDER BY rejections DESC, theme_pct DESC
LIMIT 25
