// Hierarchical Leiden in GDS: the final and every intermediate community per entity
// (intermediate ids run from the finest level to the coarsest).
CALL gds.leiden.stream($graph, {
  relationshipWeightProperty: 'weight',
  includeIntermediateCommunities: true,
  randomSeed: $seed,
  concurrency: 1,
  gamma: $resolution
})
YIELD nodeId, communityId, intermediateCommunityIds
RETURN gds.util.asNode(nodeId).id AS id, communityId, intermediateCommunityIds
