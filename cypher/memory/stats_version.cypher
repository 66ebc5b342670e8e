// Which version of the evidence stats the store's meta node says it holds (null: none).
OPTIONAL MATCH (m:GraphMindMeta {id: $id})
RETURN m.evidence_stats AS version
