// k nearest nodes by the label's vector index; cosine score is already in [0, 1].
CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node, score
RETURN node.id AS id, score AS similarity, node {.*, embedding: null} AS node
