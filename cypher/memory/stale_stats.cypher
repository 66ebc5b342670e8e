// Chunks whose EvidenceStats are marked stale (a prune that did not finish).
MATCH (c:Chunk)-[:HAS_STATS]->(s:EvidenceStats)
WHERE s.stale = true
RETURN c.id AS id
ORDER BY id
