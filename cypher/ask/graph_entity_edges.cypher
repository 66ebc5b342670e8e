// The entity-to-entity edges of these entities, for the graph retriever's sub-graph:
// RELATED (weight: the triplets behind it) and SAME_AS (weight: the vector similarity),
// at most $per_entity per entity.
UNWIND $ids AS id
MATCH (e:Entity {id: id})-[r:RELATED|SAME_AS]-(n:Entity)
WITH e, collect([n.id, coalesce(r.weight, r.similarity, 1.0)])[0..$per_entity] AS pairs
UNWIND pairs AS pair
RETURN e.id AS source, pair[0] AS target, toFloat(pair[1]) AS weight
