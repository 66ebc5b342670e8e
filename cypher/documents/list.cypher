// Documents in the store, by source, optionally only those whose title or source
// contains $match (case-insensitive); at most $limit.
MATCH (d:Document)
WHERE $match IS NULL
   OR toLower(d.title) CONTAINS toLower($match)
   OR toLower(d.source) CONTAINS toLower($match)
RETURN d.id AS id, d.title AS title, d.source AS source, d.chunks AS chunks,
       d.extract_mode AS extract_mode, d.ingested_at AS ingested_at
ORDER BY source
LIMIT $limit
