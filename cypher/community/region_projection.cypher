// The RELATED edges leaving the given entities (the caller keeps those inside the
// region); an entity without any comes with a null target.
UNWIND $ids AS id
MATCH (a:Entity {id: id})
OPTIONAL MATCH (a)-[r:RELATED]->(b:Entity)
RETURN a.id AS source, b.id AS target, r.weight AS weight
