// QRMeM's navigation step: the relations leaving these entities, to choose the one
// that best matches the question and what is missing.
UNWIND $ids AS id
MATCH (e:Entity {id: id})-[r:RELATED]-(n:Entity)
RETURN e.id AS entity, e.name AS name, r.predicate AS predicate, n.id AS neighbour,
       n.name AS neighbour_name, r.triplet_ids AS triplet_ids
LIMIT $limit
