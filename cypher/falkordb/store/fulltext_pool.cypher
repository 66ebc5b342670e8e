// The nodes matching any of the rarer query words: the pool GraphMind ranks by BM25
// (RediSearch's own score here ignores how rare a word is).
CALL db.idx.fulltext.queryNodes($label, $query) YIELD node
RETURN node.id AS id, node {.*, embedding: null} AS node
LIMIT $limit
