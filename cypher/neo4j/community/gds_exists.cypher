// Whether a GDS projection of this name exists.
CALL gds.graph.exists($graph) YIELD exists
RETURN exists
