// Write communities (ids hash level and members, so an unchanged community is the same
// node) with SUMMARY_FOR edges to their members and PARENT edges to the level above.
UNWIND $rows AS row
MERGE (c:Community {id: row.id})
SET c.level = row.level, c.size = size(row.members), c.title = row.title,
    c.summary = row.summary, c.key_facts = row.key_facts, c.algorithm = row.algorithm,
    c.summary_status = row.summary_status, c.embedding = {{VEC}}(row.embedding)
FOREACH (member IN row.members |
  MERGE (e:Entity {id: member})
  MERGE (c)-[:SUMMARY_FOR]->(e))
FOREACH (parent IN CASE WHEN row.parent IS NULL THEN [] ELSE [row.parent] END |
  MERGE (p:Community {id: parent})
  MERGE (c)-[:PARENT]->(p))
RETURN count(c) AS written
