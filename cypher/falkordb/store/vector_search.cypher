// k nearest nodes; FalkorDB's score is the cosine distance d in [0, 2], so the
// similarity (1 + cos) / 2 = 1 - d / 2 matches Neo4j's scale.
CALL db.idx.vector.queryNodes($label, 'embedding', $k, vecf32($vector)) YIELD node, score
RETURN node.id AS id, 1.0 - score / 2.0 AS similarity, node {.*, embedding: null} AS node
