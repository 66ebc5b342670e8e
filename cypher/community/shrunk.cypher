// Top-level communities that lost members (their entities were deleted).
MATCH (c:Community {level: 0})
WITH c, size([(c)-[:SUMMARY_FOR]->(e:Entity) | e.id]) AS members
WHERE members < c.size
RETURN c.id AS id
