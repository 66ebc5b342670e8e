// The entity graph's total edge weight (the null model of a region's modularity).
MATCH (:Entity)-[r:RELATED]->(:Entity)
RETURN sum(r.weight) AS weight
