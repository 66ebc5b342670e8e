// Evidence items with more than $keep incoming EVALUATED edges (what pruning would cut).
MATCH (c:Chunk)<-[v:EVALUATED]-(:Decision)
WITH c, count(v) AS n
WHERE n > $keep
RETURN c.id AS id, n
ORDER BY id
