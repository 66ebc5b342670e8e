// The vectors of the given entities: what the link stage's exact near-duplicate search
// reads for the entities the running build did not embed itself.
UNWIND $ids AS id
MATCH (e:Entity {id: id})
RETURN e.id AS id, e.embedding AS embedding
