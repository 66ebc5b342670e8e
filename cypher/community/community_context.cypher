// What a community summary is written from: its members (most central first) and the
// strongest relations among them, both bounded.
UNWIND $ids AS id
MATCH (e:Entity {id: id})
WITH e ORDER BY coalesce(e.pagerank, 0.0) DESC, e.id
LIMIT $max_entities
WITH collect(e) AS members
UNWIND members AS a
OPTIONAL MATCH (a)-[r:RELATED]->(b:Entity)
WHERE b IN members
WITH members, a, b, r ORDER BY r.weight DESC, a.id, b.id
// a member without relations adds an empty list (collecting a null is a Neo4j warning)
WITH members, collect(CASE WHEN r IS NULL THEN []
  ELSE [{subject: a.name, predicate: r.predicate, object: b.name, weight: r.weight}] END) AS found
WITH members, reduce(rels = [], x IN found | rels + x) AS rels
RETURN [m IN members | {name: m.name, type: m.type, description: m.description}] AS entities,
       rels[0..$max_relations] AS relations
