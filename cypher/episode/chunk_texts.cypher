// The text of these chunks, for summarising the episodes that cover them.
UNWIND $ids AS id
MATCH (c:Chunk {id: id})
RETURN c.id AS id, c.text AS text
