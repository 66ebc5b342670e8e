// For the given top-level communities: their members, and the ids of the communities
// below them (every level), which go with them.
UNWIND $ids AS id
MATCH (c:Community {id: id})
RETURN id, [(c)-[:SUMMARY_FOR]->(e:Entity) | e.id] AS members,
       [(d:Community)-[:PARENT*1..8]->(c) | d.id] AS below
