// A page of the entities that have a vector, in id order after $after (keyset paging on
// the id index): the candidates of the link stage's exact near-duplicate search.
MATCH (e:Entity)
WHERE e.id > $after AND e.embedding IS NOT NULL
RETURN e.id AS id, e.name AS name, e.type AS type
ORDER BY id
LIMIT $limit
