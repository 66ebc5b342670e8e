// Every query type with its centroid (the mean embedding of its questions) and size.
MATCH (t:QueryType)
RETURN t.id AS id, t.centroid AS centroid, t.count AS count, t.label AS label
ORDER BY t.id
