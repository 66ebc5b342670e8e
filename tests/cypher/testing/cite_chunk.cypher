// Test fixture: a decision that judged a chunk (used) and cited it, and judged a triplet.
MATCH (c:Chunk {id: $chunk})
MERGE (d:Decision {id: $decision})
SET d.question = $question, d.answer = 'an answer', d.outcome = 'correct'
MERGE (d)-[:EVALUATED {step: 1, verdict: 'used', reason: 'says it'}]->(c)
MERGE (d)-[:CITED {rank: 1}]->(c)
WITH d, c
OPTIONAL MATCH (t:Triplet)-[:MENTIONED_IN]->(c)
WITH d, collect(t)[0] AS t
FOREACH (x IN CASE WHEN t IS NULL THEN [] ELSE [t] END |
  MERGE (d)-[:EVALUATED {step: 1, verdict: 'rejected', reason: 'beside the point'}]->(x))
RETURN d.id AS id
