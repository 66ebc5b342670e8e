// Evidence profiles from the stats kept on write (see memory/write_decision and
// memory/set_outcome): for each chunk id with a correct evaluation (or stale stats), the
// counts and the window's verdicts and reasons, newest first: the $recent newest when
// more than $tmax correct evaluations, else all the window holds. Equal to
// memory/evidence_profiles (the traversal) whenever the window holds what it needs.
// (Matching the chunk first keeps FalkorDB from scanning every EvidenceStats per id.)
UNWIND $ids AS id
MATCH (c:Chunk {id: id})
WITH id, c
MATCH (c)-[:HAS_STATS]->(s:EvidenceStats)
WHERE s.correct > 0 OR s.stale = true
RETURN id, s.incoming AS incoming, s.used_correct AS used_correct, s.correct AS evaluated,
       s.stale = true AS stale,
       CASE WHEN s.correct > $tmax THEN s.verdicts[0..$recent] ELSE s.verdicts END
         AS verdicts,
       CASE WHEN s.correct > $tmax THEN s.reasons[0..$recent] ELSE s.reasons END AS reasons
