// Evidence profiles by backward traversal, for a whole candidate set at once: for each
// chunk id, its incoming EVALUATED edges newest first; the verdicts and reasons of those
// whose decision was judged correct (the correct-outcome filter), only the $recent most
// recent when there are more than $tmax; how many edges come in at all, and how many
// say "used" in a correct decision (reliability R = used_correct / incoming).
// Chunks never evaluated in a correct decision return no row (cold start).
UNWIND $ids AS id
MATCH (c:Chunk {id: id})<-[v:EVALUATED]-(d:Decision)
WITH id, v, d
ORDER BY d.created_at DESC, d.id DESC
WITH id,
     count(v) AS incoming,
     collect(CASE WHEN d.outcome = 'correct'
                  THEN {verdict: v.verdict, reason: v.reason} END) AS correct,
     sum(CASE WHEN d.outcome = 'correct' AND v.verdict = 'used' THEN 1 ELSE 0 END)
       AS used_correct
WHERE size(correct) > 0
RETURN id, incoming, used_correct, size(correct) AS evaluated,
       CASE WHEN size(correct) > $tmax THEN correct[0..$recent] ELSE correct END AS sample
