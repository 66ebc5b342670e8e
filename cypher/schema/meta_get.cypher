// The store's meta node: schema version, embedder model name and dimension.
MATCH (m:GraphMindMeta {id: $id})
RETURN properties(m) AS meta
