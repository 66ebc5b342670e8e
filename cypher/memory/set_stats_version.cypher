// Record that the store's evidence stats are complete at this version.
MERGE (m:GraphMindMeta {id: $id})
SET m.evidence_stats = $version
RETURN m.id AS id
