// An evaluation's reset of a chunk-only corpus: up to $limit chunks the ask loop extracted
// triplets from are marked unextracted again, as the build left them (column "deleted":
// how many were reset, for GraphStore.drain).
MATCH (c:Chunk)
WHERE c.extraction <> 'skipped'
WITH c LIMIT $limit
SET c.extraction = 'skipped'
RETURN count(*) AS deleted
