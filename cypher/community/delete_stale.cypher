// Remove communities that are no longer part of the current partition.
MATCH (c:Community)
WHERE NOT c.id IN $keep
DETACH DELETE c
RETURN count(*) AS deleted
