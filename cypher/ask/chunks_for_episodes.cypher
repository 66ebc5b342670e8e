// The chunks each episode covers.
UNWIND $ids AS id
MATCH (ep:Episode {id: id})-[:COVERS]->(c:Chunk)
RETURN ep.id AS episode, c.id AS chunk
