// Whether the community layer needs recomputing, and how many entities there are.
MATCH (e:Entity)
WITH count(e) AS entities
OPTIONAL MATCH (m:GraphMindMeta {id: $id})
RETURN coalesce(m.communities_stale, false) AS stale, entities
