// k nearest nodes, exactly: the index (approximate, HNSW) proposes max(10·k, 100)
// candidates, ranked by their score. GraphMind's vector indexes hold full-precision
// vectors (quantized ones are re-created), so the score is the exact cosine on the
// [0, 1] scale (1 + cos) / 2: computing it again from each node's stored vector gave
// the same order at two to three times the cost.
CALL db.index.vector.queryNodes($index, CASE WHEN 10 * $k > 100 THEN 10 * $k ELSE 100 END, $vector)
  YIELD node, score
WITH node, score AS similarity
ORDER BY similarity DESC, node.id
LIMIT $k
RETURN node.id AS id, similarity, node {.*, embedding: null} AS node
