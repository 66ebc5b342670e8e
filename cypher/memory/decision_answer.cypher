// A decision's answer and current outcome (what feedback is checked against).
MATCH (d:Decision {id: $id})
RETURN d.answer AS answer, d.abstained AS abstained, d.outcome AS outcome
