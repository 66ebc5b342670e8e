// Benchmark (scripts/bench_serve.py): the decisions the load test asked for, with the
// outcome on each and on its DECIDED edge from the agent (set by feedback).
MATCH (d:Decision)
WHERE d.id IN $ids
OPTIONAL MATCH (:Agent)-[e:DECIDED]->(d)
RETURN d.id AS id, d.outcome AS outcome, e.outcome AS edge_outcome
