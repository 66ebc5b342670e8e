// The nodes matching any of the given (rarer) query words, with the indexed text: the
// pool GraphMind ranks by BM25 (RediSearch's own score here ignores how rare a word is).
CALL db.idx.fulltext.queryNodes($label, $query) YIELD node
RETURN node.id AS id, node.{{text_property}} AS text
LIMIT $limit
