// Record schema version and embedder on the meta node (created once, updated after).
MERGE (m:GraphMindMeta {id: $id})
ON CREATE SET m.created_at = timestamp()
SET m.schema_version = $schema_version,
    m.embedder = $embedder,
    m.dimension = $dimension,
    m.updated_at = timestamp()
RETURN m.id AS id
