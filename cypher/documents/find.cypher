// Documents named by an id, a title, a source, or every entry of a corpus file (its
// sources start with "<file>#").
MATCH (d:Document)
WHERE d.id = $ref OR d.title = $ref OR d.source IN $sources
   OR ($prefix IS NOT NULL AND d.source STARTS WITH $prefix)
RETURN d.id AS id, d.title AS title, d.source AS source, d.chunks AS chunks,
       d.extract_mode AS extract_mode, d.ingested_at AS ingested_at
ORDER BY source
