// Store PageRank scores on entities.
UNWIND $rows AS row
MATCH (e:Entity {id: row.id})
SET e.pagerank = row.score
RETURN count(e) AS written
