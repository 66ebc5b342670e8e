// Before changed documents are rewritten: delete up to $limit relationships of their old
// versions' chunks other than PART_OF and MENTIONED_IN (which build/write_documents
// follows): reasoning edges (EVALUATED, RETRIEVED, CITED), NEXT, episode COVERS. One
// bounded transaction per call, so a chunk judged by many decisions can be replaced.
UNWIND $docs AS doc
MATCH (old:Document {source: doc.source})<-[:PART_OF]-(:Chunk)-[r]-()
WHERE old.id <> doc.id AND NOT type(r) IN ['PART_OF', 'MENTIONED_IN']
WITH DISTINCT r LIMIT $limit
DELETE r
RETURN count(*) AS deleted
