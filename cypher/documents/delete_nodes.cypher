// Delete the nodes of one label with these ids, with their relationships (communities
// and episodes summarising deleted documents).
UNWIND $ids AS id
MATCH (n:{{label}} {id: id})
DETACH DELETE n
RETURN count(*) AS deleted
