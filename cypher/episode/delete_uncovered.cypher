// Remove up to $limit episodes that cover no chunk any more (their document was rebuilt
// or deleted); what is left of their relationships is their NEXT chain.
MATCH (e:Episode)
WHERE NOT (e)-[:COVERS]->(:Chunk)
WITH e LIMIT $limit
DETACH DELETE e
RETURN count(*) AS deleted
