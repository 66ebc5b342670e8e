// The $k query types nearest to a question's embedding by their vector-indexed centroid,
// with the cosine distance (Neo4j's score is the similarity (1 + cos) / 2).
CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node, score
RETURN node.id AS id, node.label AS label, node.count AS count, 2.0 - 2.0 * score AS distance
