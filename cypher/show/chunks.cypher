// Chunks by id for `graphmind show`: the start of their text and their document.
UNWIND $ids AS id
MATCH (c:Chunk {id: id})
OPTIONAL MATCH (c)-[:PART_OF]->(doc:Document)
RETURN c.id AS id, left(c.text, 300) AS text, doc.id AS document, doc.title AS title,
       doc.source AS source
