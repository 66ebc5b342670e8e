// Drop a GDS projection if it exists.
CALL gds.graph.drop($graph, false) YIELD graphName
RETURN graphName
