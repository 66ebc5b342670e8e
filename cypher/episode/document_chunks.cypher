// The chunks of these documents with their positions (ordered by the caller), no text.
UNWIND $ids AS id
MATCH (c:Chunk)-[:PART_OF]->(d:Document {id: id})
RETURN d.id AS document, d.title AS title, c.id AS chunk, c.position AS position
