// A page of entities with their vectors, in id order after $after (keyset paging on the
// id index): what the link stage's exact near-duplicate search reads on a small store.
MATCH (e:Entity)
WHERE e.id > $after AND e.embedding IS NOT NULL
RETURN e.id AS id, e.name AS name, e.type AS type, e.embedding AS embedding
ORDER BY id
LIMIT $limit
