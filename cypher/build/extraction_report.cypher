// Chunks whose extraction gave nothing usable, with the recorded reason.
MATCH (c:Chunk)-[:PART_OF]->(d:Document)
WHERE c.extraction STARTS WITH 'failed' OR c.extraction = 'empty'
RETURN d.title AS document, c.id AS chunk, c.position AS position, c.extraction AS extraction
ORDER BY document, position
