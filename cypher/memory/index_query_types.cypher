// Give every query type written before the type index its indexed vector (the centroid).
MATCH (t:QueryType)
WHERE t.embedding IS NULL AND t.centroid IS NOT NULL
SET t.embedding = {{VEC}}(t.centroid)
RETURN count(t) AS indexed
