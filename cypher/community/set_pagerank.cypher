// Store PageRank scores on entities, skipping unchanged ones (on FalkorDB, setting a
// property of a vector-indexed node re-indexes its vector).
UNWIND $rows AS row
MATCH (e:Entity {id: row.id})
WHERE e.pagerank IS NULL OR e.pagerank <> row.score
SET e.pagerank = row.score
RETURN count(e) AS written
