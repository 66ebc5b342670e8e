// The properties (vector left out) of the nodes of one label with the given ids.
UNWIND $ids AS id
MATCH (n:{{label}} {id: id})
RETURN n.id AS id, n {.*, embedding: null} AS node
