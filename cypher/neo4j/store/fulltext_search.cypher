// Full-text (Lucene) search on the label's full-text index.
CALL db.index.fulltext.queryNodes($index, $query, {limit: $k}) YIELD node, score
RETURN node.id AS id, score, node {.*, embedding: null} AS node
