// Mark the given chunks' EvidenceStats stale before their evaluations are pruned: until
// memory/refresh_stats recomputes them, their profiles and exclusions are read by
// traversal, so an interrupted prune never shows counts of deleted edges.
UNWIND $ids AS id
MATCH (:Chunk {id: id})-[:HAS_STATS]->(s:EvidenceStats)
SET s.stale = true
RETURN count(s) AS marked
