// Whether each chunk already has extracted triplets.
UNWIND $ids AS id
MATCH (c:Chunk {id: id})-[:PART_OF]->(d:Document)
RETURN c.id AS id, c.text AS text, d.title AS title, c.extraction AS extraction
