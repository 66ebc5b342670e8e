// Delete up to $limit relationships of one label's nodes (wipe: relationships first, in
// batches, so no transaction holds more than $limit deletions).
MATCH (n:{{label}})-[r]-()
WITH DISTINCT r LIMIT $limit
DELETE r
RETURN count(*) AS deleted
