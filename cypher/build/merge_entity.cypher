// Merge near-duplicate entities: move the duplicate's triplet edges to the kept
// entity, mark every entity whose RELATED edges change as pending (they are rebuilt
// by the link stage), keep the duplicate's name as an alias, delete the duplicate.
// (Pattern comprehensions: OPTIONAL MATCH + collect is a Neo4j warning when empty.)
UNWIND $rows AS row
MATCH (dup:Entity {id: row.duplicate})
MATCH (keep:Entity {id: row.keep})
WITH dup, keep, [(ts:Triplet)-[:SUBJECT]->(dup) | ts] AS subjects,
     [(to:Triplet)-[:OBJECT]->(dup) | to] AS objects,
     [(source:Entity)<-[:SUBJECT]-(:Triplet)-[:OBJECT]->(dup) | source] AS sources
FOREACH (t IN subjects | MERGE (t)-[:SUBJECT]->(keep))
FOREACH (t IN objects | MERGE (t)-[:OBJECT]->(keep))
FOREACH (e IN sources | MERGE (p:Pending {id: e.id}) SET p.sweep = true)
MERGE (kp:Pending {id: keep.id})
SET kp.sweep = true
SET keep.aliases = coalesce(keep.aliases, []) + [dup.name]
DETACH DELETE dup
RETURN count(keep) AS merged
