// Near-duplicate candidates: for each entity, its nearest entities by the vector index.
UNWIND $ids AS id
MATCH (e:Entity {id: id})
WHERE e.embedding IS NOT NULL
CALL db.index.vector.queryNodes('entity_embedding', $k, e.embedding) YIELD node, score
WITH e, node, score
WHERE node.id <> e.id AND score >= $min_similarity
RETURN e.id AS id, e.name AS name, e.type AS type,
       node.id AS other, node.name AS other_name, node.type AS other_type, score AS similarity
