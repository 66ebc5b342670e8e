// The chunks of these documents, in order.
UNWIND $ids AS id
MATCH (c:Chunk)-[:PART_OF]->(d:Document {id: id})
RETURN d.id AS document, c.id AS id, c.position AS position, c.tokens AS tokens,
       c.extraction AS extraction, c.text AS text
ORDER BY document, position
