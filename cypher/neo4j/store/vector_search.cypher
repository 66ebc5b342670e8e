// k nearest nodes, exactly: the index (approximate, HNSW) proposes max(10·k, 100)
// candidates, which are re-ranked by the exact cosine of their stored vectors.
// vector.similarity.cosine is already on the [0, 1] scale (1 + cos) / 2.
CALL db.index.vector.queryNodes($index, CASE WHEN 10 * $k > 100 THEN 10 * $k ELSE 100 END, $vector)
  YIELD node
WITH node, vector.similarity.cosine(node.embedding, $vector) AS similarity
ORDER BY similarity DESC, node.id
LIMIT $k
RETURN node.id AS id, similarity, node {.*, embedding: null} AS node
