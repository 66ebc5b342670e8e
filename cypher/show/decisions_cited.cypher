// The chunks that decisions cited, for `graphmind show --query-type`.
UNWIND $ids AS id
MATCH (d:Decision {id: id})-[r:CITED]->(c:Chunk)
RETURN d.id AS decision, c.id AS chunk, r.rank AS rank
