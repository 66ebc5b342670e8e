// Write one answer's reasoning atomically: the decision, its agent (merged) and DECIDED
// edge; one step per round with RETRIEVED edges to its candidates (carrying that
// round's verdict); one EVALUATED edge per judged evidence item (its final verdict);
// CITED edges (those only the full answer cites marked `full`); and the retrieval graph: a Query node for this retrieval, linked by
// RETRIEVED_VIA (the pipeline's metadata) and OF_TYPE to its QueryType, whose centroid
// moves toward the question (a running mean) or which is created with it.
// Chunks are matched once; edges to a chunk that is gone are skipped. A decision or step
// id that already exists fails the whole query, which then writes nothing.
// In the same write, each judged chunk's EvidenceStats (what its evidence profile is read
// from; see graphmind/memory/stats.py) counts the new evaluation, and when the decision
// is already correct, counts it among the correct ones, takes it into the window of the
// most recent correct evaluations (at most $capacity; newest first, so an evaluation
// older than a window that does not hold them all stays out) and into the TYPE_STATS
// edge from the decision's query type. A stats node left behind by a deleted chunk of
// the same id starts over when it is linked again. A decision written with an outcome
// also counts for its recipe in its query type's recipe counts (what the planner reads).
// One decision per query: two rows judging one chunk would read its stats before
// either writes them.
UNWIND $rows AS row
OPTIONAL MATCH (chunk:Chunk)
WHERE chunk.id IN row.chunk_ids
// lists, not the bare (possibly null) chunk: collecting a null is a Neo4j warning
WITH row, collect(CASE WHEN chunk IS NULL THEN [] ELSE [chunk] END) AS found
WITH row, reduce(chunks = [], x IN found | chunks + x) AS chunks
// a broad answer's communities, matched the same way
OPTIONAL MATCH (community:Community)
WHERE community.id IN [e IN row.communities | e.community]
WITH row, chunks,
     collect(CASE WHEN community IS NULL THEN [] ELSE [community] END) AS found
WITH row, chunks, reduce(cs = [], x IN found | cs + x) AS communities
MERGE (a:Agent {id: row.agent.id})
SET a.model = row.agent.model, a.prompt_version = row.agent.prompt_version
CREATE (d:Decision {
  id: row.id, question: row.question, answer: row.answer, abstained: row.abstained,
  sufficiency: row.sufficiency, confidence: row.confidence, rounds: size(row.steps),
  outcome: row.outcome, mode: row.mode, memory: row.memory, model: row.model,
  temporal: row.temporal, tokens: row.tokens, latency_ms: row.latency_ms,
  store_ms: row.store_ms, llm_ms: row.llm_ms, created_at: row.created_at, cues: row.cues,
  citations: [c IN row.citations | c.chunk], query_type: row.query_type_id,
  full_answer: row.full_answer, explanation: row.explanation,
  explanation_chunks: row.explanation_chunks, sources: [c IN row.sources | c.chunk]
})
CREATE (a)-[:DECIDED {confidence: row.confidence, timestamp: row.created_at,
                      outcome: row.outcome}]->(d)
FOREACH (s IN row.steps |
  CREATE (st:Step {
    id: s.id, round: s.round, sub_query: s.sub_query, queries: s.queries,
    draft_answer: s.draft_answer, sufficiency: s.sufficiency, confidence: s.confidence,
    missing: s.missing, cue: s.cue, probes: s.probes, expanded: s.expanded,
    extracted: s.extracted, store_ms: s.store_ms, llm_ms: s.llm_ms, tokens: s.tokens,
    profiled: s.profiled
  })
  CREATE (d)-[:HAS_STEP]->(st)
  FOREACH (r IN s.retrieved |
    FOREACH (c IN [x IN chunks WHERE x.id = r.chunk] |
      CREATE (st)-[:RETRIEVED {rank: r.rank, score: r.score, sources: r.sources,
                               verdict: r.verdict, reason: r.reason,
                               confidence_delta: r.confidence_delta}]->(c))))
FOREACH (e IN row.evaluated |
  FOREACH (c IN [x IN chunks WHERE x.id = e.chunk] |
    CREATE (d)-[:EVALUATED {step: e.step, verdict: e.verdict, reason: e.reason,
                            confidence_delta: e.confidence_delta}]->(c)))
FOREACH (e IN row.communities |
  FOREACH (co IN [x IN communities WHERE x.id = e.community] |
    CREATE (d)-[:EVALUATED {step: 1, verdict: e.verdict, reason: e.reason,
                            score: e.score}]->(co)))
FOREACH (cited IN row.citations |
  FOREACH (c IN [x IN chunks WHERE x.id = cited.chunk] |
    CREATE (d)-[:CITED {rank: cited.rank}]->(c)))
FOREACH (cited IN row.sources |
  FOREACH (c IN [x IN chunks WHERE x.id = cited.chunk] |
    CREATE (d)-[:CITED {rank: cited.rank, full: true}]->(c)))
FOREACH (t IN CASE WHEN row.query_type IS NULL THEN [] ELSE [row.query_type] END |
  MERGE (qt:QueryType {id: t.id})
  ON CREATE SET qt.centroid = t.vector, qt.count = 1, qt.label = t.label,
                qt.created_at = row.created_at
  ON MATCH SET qt.centroid = [i IN range(0, size(qt.centroid) - 1) |
                              qt.centroid[i] + (t.vector[i] - qt.centroid[i]) / (qt.count + 1)],
               qt.count = qt.count + 1
  SET qt.embedding = {{VEC}}(qt.centroid)
  CREATE (q:Query {id: row.retrieval.query_id, text: row.question,
                   queries: row.retrieval.queries})
  CREATE (d)-[:RETRIEVED_VIA {
    config: row.retrieval.config, filters: row.retrieval.filters, memory: row.memory,
    explored: row.retrieval.explored, excluded: row.retrieval.excluded,
    candidates_pre: row.retrieval.candidates_pre,
    candidates_post: row.retrieval.candidates_post,
    top_relevant: row.retrieval.top_relevant, judged: row.retrieval.judged,
    profiled: row.retrieval.profiled, latency_ms: row.retrieval.latency_ms,
    token_cost: row.tokens, timestamp: row.created_at
  }]->(q)
  CREATE (q)-[:OF_TYPE]->(qt))
WITH d, row, chunks
// a decision written with its outcome counts for its recipe on its query type at once
OPTIONAL MATCH (qt:QueryType {id: row.query_type_id})
WHERE row.query_type IS NOT NULL AND row.outcome IN ['correct', 'incorrect']
WITH d, row, chunks, qt, row.retrieval.config AS config,
     coalesce(qt.recipes, []) AS names, coalesce(qt.recipe_support, []) AS support,
     coalesce(qt.recipe_correct, []) AS correct
WITH d, row, chunks, qt, config, support, correct,
     CASE WHEN config IN names THEN names ELSE names + [config] END AS names
FOREACH (t IN CASE WHEN qt IS NULL THEN [] ELSE [qt] END |
  SET t.recipes = names,
      t.recipe_support = [i IN range(0, size(names) - 1) |
        coalesce(support[i], 0) + CASE WHEN names[i] = config THEN 1 ELSE 0 END],
      t.recipe_correct = [i IN range(0, size(names) - 1) |
        coalesce(correct[i], 0)
        + CASE WHEN names[i] = config AND row.outcome = 'correct' THEN 1 ELSE 0 END])
WITH d, row, chunks
UNWIND row.evaluated AS e
UNWIND [x IN chunks WHERE x.id = e.chunk] AS c
MERGE (s:EvidenceStats {id: c.id})
MERGE (c)-[:HAS_STATS]->(s)
ON CREATE SET s.incoming = 0, s.correct = 0, s.used_correct = 0, s.at = [], s.decisions = [],
              s.verdicts = [], s.reasons = [], s.stale = null
WITH d, row, e, c, s, row.outcome = 'correct' AS ok,
     coalesce(s.at, []) AS ats, coalesce(s.decisions, []) AS ids,
     coalesce(s.verdicts, []) AS verdicts, coalesce(s.reasons, []) AS reasons
// the window is newest first (created_at, then decision id, both descending): the new
// evaluation goes in after every entry newer than it
WITH d, row, e, c, s, ok, ats, ids, verdicts, reasons,
     size([i IN range(0, size(ats) - 1)
           WHERE ats[i] > d.created_at OR (ats[i] = d.created_at AND ids[i] > d.id)]) AS pos
WITH d, row, e, c, s, ok, ats, ids, verdicts, reasons, pos,
     pos < size(ats) OR size(ats) = coalesce(s.correct, 0) AS fits
SET s.incoming = coalesce(s.incoming, 0) + 1
FOREACH (_ IN CASE WHEN ok THEN [1] ELSE [] END |
  SET s.correct = coalesce(s.correct, 0) + 1,
      s.used_correct = coalesce(s.used_correct, 0)
                       + CASE WHEN e.verdict = 'used' THEN 1 ELSE 0 END)
FOREACH (_ IN CASE WHEN ok AND fits THEN [1] ELSE [] END |
  SET s.at = (ats[0..pos] + [d.created_at] + ats[pos..])[0..$capacity],
      s.decisions = (ids[0..pos] + [d.id] + ids[pos..])[0..$capacity],
      s.verdicts = (verdicts[0..pos] + [e.verdict] + verdicts[pos..])[0..$capacity],
      s.reasons = (reasons[0..pos] + [coalesce(e.reason, '')] + reasons[pos..])[0..$capacity])
FOREACH (t IN CASE WHEN ok AND row.query_type_id IS NOT NULL
                   THEN [row.query_type_id] ELSE [] END |
  MERGE (qt:QueryType {id: t})
  MERGE (qt)-[ts:TYPE_STATS]->(c)
  ON CREATE SET ts.correct = 1,
                ts.rejected = CASE WHEN e.verdict = 'rejected' THEN 1 ELSE 0 END
  ON MATCH SET ts.correct = ts.correct + 1,
               ts.rejected = ts.rejected + CASE WHEN e.verdict = 'rejected' THEN 1 ELSE 0 END)
RETURN count(*) AS evaluated
