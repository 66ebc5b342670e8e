// Which of these ids already exist with an embedding (so they need none computed).
UNWIND $ids AS id
MATCH (n:{{label}} {id: id})
WHERE n.embedding IS NOT NULL
RETURN n.id AS id
