// Remove these episodes (stale windows of a document that is still in the store).
UNWIND $ids AS id
MATCH (e:Episode {id: id})
DETACH DELETE e
RETURN count(*) AS deleted
