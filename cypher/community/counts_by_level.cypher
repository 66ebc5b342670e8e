// Number of communities per level and the algorithm that made them.
MATCH (c:Community)
RETURN c.level AS level, c.algorithm AS algorithm, count(c) AS communities,
       avg(c.size) AS mean_size, max(c.size) AS max_size
ORDER BY level
