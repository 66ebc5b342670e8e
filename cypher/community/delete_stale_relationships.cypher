// Delete up to $limit relationships of communities no longer in the current partition
// (before the communities themselves), one bounded transaction per call.
MATCH (c:Community)-[r]-()
WHERE NOT c.id IN $keep
WITH DISTINCT r LIMIT $limit
DELETE r
RETURN count(*) AS deleted
