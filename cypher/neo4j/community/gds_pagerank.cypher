// PageRank over the projected entity graph, written onto the entities.
CALL gds.pageRank.write($graph, {
  relationshipWeightProperty: 'weight',
  dampingFactor: $damping,
  writeProperty: 'pagerank'
})
YIELD nodePropertiesWritten
RETURN nodePropertiesWritten
