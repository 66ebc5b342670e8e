// Add entities to communities that keep their id, title and summary (an incremental
// run's new entities, each joining the communities of the neighbour it is tied to most),
// and count each community's members again.
UNWIND $rows AS row
MATCH (c:Community {id: row.community})
FOREACH (id IN row.entities |
  MERGE (e:Entity {id: id})
  MERGE (c)-[:SUMMARY_FOR]->(e))
WITH DISTINCT c
WITH c, size([(c)-[:SUMMARY_FOR]->(m:Entity) | m.id]) AS members
SET c.size = members
RETURN count(c) AS attached
