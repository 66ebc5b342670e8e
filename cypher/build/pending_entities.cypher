// Entities waiting for the link stage (marked by a :Pending node); ``sweep`` says it
// may have lost triplets (a replaced document, a merge). A marker whose entity is
// gone comes back with a null name.
MATCH (p:Pending)
OPTIONAL MATCH (e:Entity {id: p.id})
RETURN p.id AS id, e.name AS name, e.type AS type, coalesce(p.sweep, false) AS sweep
ORDER BY id
