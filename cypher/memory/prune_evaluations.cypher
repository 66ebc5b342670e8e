// Keep the $keep most recent EVALUATED edges of each given evidence item; delete up to
// $limit of the rest per item (the caller batches items so a query deletes at most $limit).
UNWIND $ids AS id
MATCH (c:Chunk {id: id})<-[v:EVALUATED]-(d:Decision)
WITH id, v
ORDER BY d.created_at DESC
WITH id, collect(v) AS edges
UNWIND edges[$keep..$keep + $limit] AS old
DELETE old
RETURN count(*) AS deleted
