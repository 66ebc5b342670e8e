// Every chunk with at least one incoming EVALUATED edge (what the stats are rebuilt for).
MATCH (c:Chunk)<-[:EVALUATED]-(:Decision)
RETURN DISTINCT c.id AS id
ORDER BY id
