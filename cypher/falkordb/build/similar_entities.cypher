// Near-duplicate candidates: for each entity, its nearest entities by the vector index
// (FalkorDB's score is a cosine distance d; similarity (1 + cos) / 2 = 1 - d / 2).
UNWIND $ids AS id
MATCH (e:Entity {id: id})
WHERE e.embedding IS NOT NULL
CALL db.idx.vector.queryNodes('Entity', 'embedding', $k, e.embedding) YIELD node, score
WITH e, node, 1.0 - score / 2.0 AS similarity
WHERE node.id <> e.id AND similarity >= $min_similarity
RETURN e.id AS id, e.name AS name, e.type AS type,
       node.id AS other, node.name AS other_name, node.type AS other_type, similarity
