// Whether the community layer needs recomputing, and how many entities there are.
OPTIONAL MATCH (m:GraphMindMeta {id: $id})
WITH coalesce(m.communities_stale, false) AS stale
OPTIONAL MATCH (e:Entity)
RETURN stale, count(e) AS entities
