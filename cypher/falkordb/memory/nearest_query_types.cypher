// The $k query types nearest to a question's embedding by their vector-indexed centroid,
// with the cosine distance (FalkorDB's score is the distance, 1 - cos).
CALL db.idx.vector.queryNodes('QueryType', 'embedding', $k, vecf32($vector)) YIELD node, score
RETURN node.id AS id, node.label AS label, node.count AS count, score AS distance
