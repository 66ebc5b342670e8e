// Write episodes (ids hash document and first and last chunk, so an unchanged window is
// the same node) with COVERS edges to their chunks and NEXT edges to the episodes before
// and after them that exist already (the later of two neighbours written links them).
UNWIND $rows AS row
MERGE (e:Episode {id: row.id})
SET e.document_id = row.document_id, e.start = row.start, e.end = row.end,
    e.chunk_count = size(row.chunks), e.summary = row.summary,
    e.summary_status = row.summary_status, e.embedding = {{VEC}}(row.embedding)
WITH e, row
OPTIONAL MATCH (p:Episode)
WHERE p.id = row.previous
FOREACH (x IN CASE WHEN p IS NULL THEN [] ELSE [p] END | MERGE (x)-[:NEXT]->(e))
WITH e, row
OPTIONAL MATCH (n:Episode)
WHERE n.id = row.next
FOREACH (x IN CASE WHEN n IS NULL THEN [] ELSE [n] END | MERGE (e)-[:NEXT]->(x))
WITH e, row
UNWIND row.chunks AS chunk_id
MATCH (c:Chunk {id: chunk_id})
MERGE (e)-[:COVERS]->(c)
RETURN count(DISTINCT e) AS written
