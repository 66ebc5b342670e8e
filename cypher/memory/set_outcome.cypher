// Record feedback on a decision: the outcome on the Decision node and its DECIDED edge,
// with the gold answer and its token F1 when feedback came as a gold answer. Setting
// the same outcome again changes nothing; a later call corrects an earlier one.
MATCH (d:Decision {id: $id})
OPTIONAL MATCH (:Agent)-[decided:DECIDED]->(d)
SET d.outcome = $outcome, d.gold = $gold, d.feedback_f1 = $f1, d.feedback_at = $now
FOREACH (x IN CASE WHEN decided IS NULL THEN [] ELSE [decided] END |
  SET x.outcome = $outcome)
RETURN d.id AS id
