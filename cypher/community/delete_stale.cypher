// Remove up to $limit communities that are no longer part of the current partition
// (their relationships are gone already: community/delete_stale_relationships).
MATCH (c:Community)
WHERE NOT c.id IN $keep
WITH c LIMIT $limit
DETACH DELETE c
RETURN count(*) AS deleted
