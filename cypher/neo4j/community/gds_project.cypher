// Project the entity graph (undirected, weighted RELATED) into GDS.
CALL gds.graph.project($graph, 'Entity', {RELATED: {orientation: 'UNDIRECTED', properties: 'weight'}})
YIELD graphName, nodeCount, relationshipCount
RETURN graphName, nodeCount, relationshipCount
