// Contract test: read one chunk back.
MATCH (c:Chunk {id: $id})
RETURN c.id AS id, c.text AS text, c.position AS position
