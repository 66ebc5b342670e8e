// Personalized PageRank restarting at the seed entities; the top $k entities.
MATCH (s:Entity)
WHERE s.id IN $seeds
WITH collect(s) AS sources
CALL gds.pageRank.stream($graph, {
  relationshipWeightProperty: 'weight',
  dampingFactor: $damping,
  sourceNodes: sources
})
YIELD nodeId, score
WITH gds.util.asNode(nodeId) AS node, score
ORDER BY score DESC, node.id
LIMIT $k
RETURN node.id AS id, score
