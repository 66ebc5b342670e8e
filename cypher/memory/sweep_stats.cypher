// Delete EvidenceStats left behind by chunks that are gone (a changed document replaces
// its chunks), and TYPE_STATS edges no correct evaluation backs any more.
OPTIONAL MATCH (s:EvidenceStats)
WHERE NOT (s)<-[:HAS_STATS]-(:Chunk)
WITH collect(s) AS orphans
FOREACH (s IN orphans | DELETE s)
WITH size(orphans) AS stats
OPTIONAL MATCH (:QueryType)-[t:TYPE_STATS]->(:Chunk)
WHERE t.correct = 0
WITH stats, collect(t) AS empty
FOREACH (t IN empty | DELETE t)
RETURN stats, size(empty) AS type_stats
