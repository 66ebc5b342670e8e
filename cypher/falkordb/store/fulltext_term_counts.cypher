// How many nodes of the label each query word matches in its full-text index (its
// document frequency, for BM25). Words matching nothing are left out.
UNWIND $terms AS term
CALL db.idx.fulltext.queryNodes($label, term) YIELD node
RETURN term, count(node) AS df
