// Record feedback on a decision: the outcome on the Decision node and its DECIDED edge,
// with the gold answer and its token F1 when feedback came as a gold answer. Setting
// the same outcome again changes nothing; a later call corrects an earlier one.
// When the decision becomes correct (or stops being correct), the same write moves its
// evaluations into (or out of) each judged chunk's EvidenceStats: the correct counts, the
// window of the most recent correct evaluations (newest first, at most $capacity), and
// the TYPE_STATS edge from the decision's query type. A window left holding fewer than
// $window while the chunk has more is refilled (to $capacity) by walking that chunk's
// EVALUATED edges; the slack between the two makes that rare. The decision's recipe
// counts on its query type (decisions with feedback, correct ones) follow too.
MATCH (d:Decision {id: $id})
OPTIONAL MATCH (:Agent)-[decided:DECIDED]->(d)
OPTIONAL MATCH (qt:QueryType {id: d.query_type})
OPTIONAL MATCH (d)-[via:RETRIEVED_VIA]->(:Query)
WITH d, decided, qt, via.config AS config,
     CASE WHEN $outcome = 'correct' AND coalesce(d.outcome, '') <> 'correct' THEN 1
          WHEN $outcome <> 'correct' AND d.outcome = 'correct' THEN -1
          ELSE 0 END AS delta,
     CASE WHEN d.outcome IN ['correct', 'incorrect'] THEN 0 ELSE 1 END AS decided_now
// the recipe's counts on the query type: one more decision with feedback, or one more
// (or one fewer) correct
WITH d, decided, qt, config, delta, decided_now,
     coalesce(qt.recipes, []) AS names, coalesce(qt.recipe_support, []) AS support,
     coalesce(qt.recipe_correct, []) AS correct
WITH d, decided, qt, config, delta, decided_now, support, correct,
     CASE WHEN config IS NULL OR config IN names THEN names ELSE names + [config] END AS names
FOREACH (t IN CASE WHEN qt IS NULL OR config IS NULL OR (delta = 0 AND decided_now = 0)
                   THEN [] ELSE [qt] END |
  SET t.recipes = names,
      t.recipe_support = [i IN range(0, size(names) - 1) |
        coalesce(support[i], 0) + CASE WHEN names[i] = config THEN decided_now ELSE 0 END],
      t.recipe_correct = [i IN range(0, size(names) - 1) |
        coalesce(correct[i], 0) + CASE WHEN names[i] = config THEN delta ELSE 0 END])
WITH d, decided, qt, delta
SET d.outcome = $outcome, d.gold = $gold, d.feedback_f1 = $f1, d.feedback_at = $now
FOREACH (x IN CASE WHEN decided IS NULL THEN [] ELSE [decided] END |
  SET x.outcome = $outcome)
WITH d, qt, delta
WHERE delta <> 0
MATCH (d)-[v:EVALUATED]->(c:Chunk)-[:HAS_STATS]->(s:EvidenceStats)
WITH d, qt, delta, v, c, s,
     coalesce(s.at, []) AS ats, coalesce(s.decisions, []) AS ids,
     coalesce(s.verdicts, []) AS verdicts, coalesce(s.reasons, []) AS reasons
// newest first: the decision's place is after every entry newer than it
WITH d, qt, delta, v, c, s, ats, ids, verdicts, reasons,
     size([i IN range(0, size(ats) - 1)
           WHERE ats[i] > d.created_at OR (ats[i] = d.created_at AND ids[i] > d.id)]) AS pos
WITH d, qt, delta, v, c, s, ats, ids, verdicts, reasons, pos,
     pos < size(ids) AND ids[pos] = d.id AS inside
WITH d, qt, delta, v, c, s, ats, ids, verdicts, reasons, pos, inside,
     size(ats) AS held, coalesce(s.correct, 0) AS n
// an evaluation older than a window that does not hold every correct one stays out
WITH d, qt, delta, v, c, s, ats, ids, verdicts, reasons, pos,
     delta = -1 AND inside
       AND held - 1 < CASE WHEN n - 1 < $window THEN n - 1 ELSE $window END AS refill,
     CASE WHEN delta = 1 AND NOT inside AND (pos < held OR held = n) THEN 1
          WHEN delta = -1 AND inside THEN -1
          ELSE 0 END AS move
SET s.correct = coalesce(s.correct, 0) + delta,
    s.used_correct = coalesce(s.used_correct, 0)
                     + CASE WHEN v.verdict = 'used' THEN delta ELSE 0 END,
    s.at = CASE move WHEN 1 THEN (ats[0..pos] + [d.created_at] + ats[pos..])[0..$capacity]
                     WHEN -1 THEN ats[0..pos] + ats[pos + 1..] ELSE ats END,
    s.decisions = CASE move WHEN 1 THEN (ids[0..pos] + [d.id] + ids[pos..])[0..$capacity]
                            WHEN -1 THEN ids[0..pos] + ids[pos + 1..] ELSE ids END,
    s.verdicts = CASE move
                   WHEN 1 THEN (verdicts[0..pos] + [v.verdict] + verdicts[pos..])[0..$capacity]
                   WHEN -1 THEN verdicts[0..pos] + verdicts[pos + 1..] ELSE verdicts END,
    s.reasons = CASE move
                  WHEN 1 THEN (reasons[0..pos] + [coalesce(v.reason, '')]
                               + reasons[pos..])[0..$capacity]
                  WHEN -1 THEN reasons[0..pos] + reasons[pos + 1..] ELSE reasons END
FOREACH (t IN CASE WHEN qt IS NULL THEN [] ELSE [qt] END |
  MERGE (t)-[ts:TYPE_STATS]->(c)
  ON CREATE SET ts.correct = 0, ts.rejected = 0
  SET ts.correct = ts.correct + delta,
      ts.rejected = ts.rejected + CASE WHEN v.verdict = 'rejected' THEN delta ELSE 0 END)
WITH d, collect({stats: s, refill: refill}) AS touched
UNWIND [t IN touched WHERE t.refill | t.stats] AS s
MATCH (s)<-[:HAS_STATS]-(:Chunk)<-[w:EVALUATED]-(o:Decision)
WHERE o.outcome = 'correct' AND o.id <> d.id
WITH s, w, o
ORDER BY o.created_at DESC, o.id DESC
WITH s, collect({at: o.created_at, id: o.id, verdict: w.verdict,
                 reason: coalesce(w.reason, '')})[0..$capacity] AS window
SET s.at = [x IN window | x.at], s.decisions = [x IN window | x.id],
    s.verdicts = [x IN window | x.verdict], s.reasons = [x IN window | x.reason]
RETURN count(*) AS refilled
