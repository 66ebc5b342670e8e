// Write one answer's reasoning atomically: the decision, its agent (merged) and DECIDED
// edge, one step per round with RETRIEVED edges to its candidates, one EVALUATED edge
// per judged candidate per round, and CITED edges. Chunks are matched once; edges to a
// chunk that is gone are skipped. A step id that already exists fails the whole query.
UNWIND $rows AS row
OPTIONAL MATCH (chunk:Chunk)
WHERE chunk.id IN row.chunk_ids
WITH row, collect(chunk) AS chunks
MERGE (a:Agent {id: row.agent.id})
SET a.model = row.agent.model, a.prompt_version = row.agent.prompt_version
CREATE (d:Decision {
  id: row.id, question: row.question, answer: row.answer, abstained: row.abstained,
  sufficiency: row.sufficiency, confidence: row.confidence, rounds: size(row.steps),
  outcome: row.outcome, mode: row.mode, model: row.model, temporal: row.temporal,
  tokens: row.tokens, latency_ms: row.latency_ms, store_ms: row.store_ms,
  llm_ms: row.llm_ms, created_at: row.created_at, cues: row.cues,
  citations: [c IN row.citations | c.chunk], query_type: null
})
CREATE (a)-[:DECIDED {confidence: row.confidence, timestamp: row.created_at,
                      outcome: row.outcome}]->(d)
FOREACH (s IN row.steps |
  CREATE (st:Step {
    id: s.id, round: s.round, sub_query: s.sub_query, queries: s.queries,
    draft_answer: s.draft_answer, sufficiency: s.sufficiency, confidence: s.confidence,
    missing: s.missing, cue: s.cue, probes: s.probes, expanded: s.expanded,
    extracted: s.extracted, store_ms: s.store_ms, llm_ms: s.llm_ms, tokens: s.tokens
  })
  CREATE (d)-[:HAS_STEP]->(st)
  FOREACH (r IN s.retrieved |
    FOREACH (c IN [x IN chunks WHERE x.id = r.chunk] |
      CREATE (st)-[:RETRIEVED {rank: r.rank, score: r.score, sources: r.sources}]->(c)))
  FOREACH (e IN s.evaluated |
    FOREACH (c IN [x IN chunks WHERE x.id = e.chunk] |
      CREATE (d)-[:EVALUATED {step: s.round, verdict: e.verdict, reason: e.reason,
                              confidence_delta: e.confidence_delta}]->(c))))
FOREACH (cited IN row.citations |
  FOREACH (c IN [x IN chunks WHERE x.id = cited.chunk] |
    CREATE (d)-[:CITED {rank: cited.rank}]->(c)))
RETURN d.id AS id
