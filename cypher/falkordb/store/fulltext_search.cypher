// Full-text (RediSearch) search on the label's full-text index.
CALL db.idx.fulltext.queryNodes($label, $query) YIELD node, score
RETURN node.id AS id, score, node {.*, embedding: null} AS node
ORDER BY score DESC
LIMIT $k
