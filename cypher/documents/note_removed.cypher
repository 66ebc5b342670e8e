// Keep a decision's record of evidence that is being deleted: each note (what was
// removed, from which document, when, and whether it was cited) is added once to
// removed_evidence.
UNWIND $rows AS row
MATCH (d:Decision {id: row.decision})
WITH d, [n IN row.notes WHERE NOT n IN coalesce(d.removed_evidence, [])] AS fresh
SET d.removed_evidence = coalesce(d.removed_evidence, []) + fresh
RETURN count(d) AS noted
