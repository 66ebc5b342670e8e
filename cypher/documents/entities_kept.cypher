// For these entities: their names, and how many of their triplets stay when the
// triplets in $gone are deleted (none: the entity goes too).
UNWIND $entities AS eid
MATCH (e:Entity {id: eid})
OPTIONAL MATCH (e)<-[:SUBJECT|OBJECT]-(t:Triplet)
WHERE NOT t.id IN $gone
RETURN e.id AS id, e.name AS name, count(DISTINCT t) AS kept
