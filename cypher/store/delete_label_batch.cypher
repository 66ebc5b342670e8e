// Delete up to $limit nodes of one label with their relationships (wipe, in batches).
MATCH (n:{{label}})
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted
