// The members a community summary is written from, for many communities at once
// (graphmind/communities/context.py ranks and bounds them per community).
UNWIND $ids AS id
MATCH (e:Entity {id: id})
RETURN e.id AS id, e.name AS name, e.type AS type, e.description AS description,
       coalesce(e.pagerank, 0.0) AS pagerank
