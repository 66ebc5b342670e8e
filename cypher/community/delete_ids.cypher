// Delete the given communities with their relationships (a local recompute replaced
// them; each has at most its members' SUMMARY_FOR edges and its PARENT links).
UNWIND $ids AS id
MATCH (c:Community {id: id})
DETACH DELETE c
RETURN count(*) AS deleted
