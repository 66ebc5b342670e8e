// Remove episodes that cover no chunk any more (their document was rebuilt or deleted).
MATCH (e:Episode)
WHERE NOT (e)-[:COVERS]->(:Chunk)
DETACH DELETE e
RETURN count(*) AS deleted
