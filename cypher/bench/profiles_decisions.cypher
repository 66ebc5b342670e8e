// Benchmark (scripts/bench_profiles.py): synthetic decisions, one row per decision
// with all of its EVALUATED edges (verdict, reason, step, confidence_delta), its
// DECIDED edge from the agent and its retrieval (a Query node, RETRIEVED_VIA with the
// configuration, OF_TYPE to an existing QueryType). Chunks are matched by id.
UNWIND $rows AS row
MATCH (a:Agent {id: $agent})
MATCH (qt:QueryType {id: row.query_type})
CREATE (d:Decision {id: row.id, question: row.question, answer: row.answer,
                    outcome: row.outcome, query_type: row.query_type,
                    created_at: row.created_at, rounds: 1})
CREATE (a)-[:DECIDED {confidence: row.confidence, timestamp: row.created_at,
                      outcome: row.outcome}]->(d)
CREATE (q:Query {id: row.query_id, text: row.question})
CREATE (d)-[:RETRIEVED_VIA {config: row.config, filters: row.filters, memory: 'full',
                            explored: false, excluded: [], candidates_pre: 40,
                            candidates_post: size(row.evaluated),
                            timestamp: row.created_at}]->(q)
CREATE (q)-[:OF_TYPE]->(qt)
WITH d, row
UNWIND row.evaluated AS e
MATCH (c:Chunk {id: e.chunk})
CREATE (d)-[:EVALUATED {step: e.step, verdict: e.verdict, reason: e.reason,
                        confidence_delta: e.delta}]->(c)
RETURN count(*) AS edges
