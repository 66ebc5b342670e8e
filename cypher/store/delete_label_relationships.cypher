// Delete up to $limit relationships of one label's nodes (a wipe, or the evaluation's
// reset of the reasoning graph: relationships first, in batches, so no transaction holds
// more than $limit deletions; then the bare nodes with store/delete_label_batch).
MATCH (n:{{label}})-[r]-()
WITH DISTINCT r LIMIT $limit
DELETE r
RETURN count(*) AS deleted
