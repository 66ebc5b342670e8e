// Note on the meta node that the community layer no longer matches the entities.
MATCH (m:GraphMindMeta {id: $id})
SET m.communities_stale = $stale
RETURN m.communities_stale AS stale
