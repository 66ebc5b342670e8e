// Documents named by an id, a title, a source, every entry of a corpus file (its
// sources start with "<file>#"), or a path's last parts ($suffix: "/notes.md").
MATCH (d:Document)
WHERE d.id = $ref OR d.title = $ref OR d.source IN $sources
   OR ($prefix IS NOT NULL AND d.source STARTS WITH $prefix)
   OR ($suffix IS NOT NULL AND (d.source ENDS WITH $suffix OR d.source CONTAINS ($suffix + '#')))
RETURN d.id AS id, d.title AS title, d.source AS source, d.chunks AS chunks,
       d.extract_mode AS extract_mode, d.ingested_at AS ingested_at
ORDER BY source
