// Add extracted entities and triplets to chunks already in the graph (the ask loop's
// evolving sub-graph); touched entities get a :Pending marker until RELATED is rebuilt.
UNWIND $rows AS row
MATCH (c:Chunk {id: row.chunk_id})
SET c.extraction = row.status
FOREACH (e IN row.entities |
  MERGE (en:Entity {id: e.id})
  ON CREATE SET en.name = e.name, en.type = e.type, en.description = e.description
  MERGE (:Pending {id: e.id})
  FOREACH (vector IN CASE WHEN e.embedding IS NULL THEN [] ELSE [e.embedding] END |
    SET en.embedding = {{VEC}}(vector)))
FOREACH (t IN row.triplets |
  MERGE (tr:Triplet {id: t.id})
  ON CREATE SET tr.subject = t.subject, tr.predicate = t.predicate, tr.object = t.object,
                tr.text = t.text, tr.description = t.description, tr.event_time = t.event_time
  FOREACH (vector IN CASE WHEN t.embedding IS NULL THEN [] ELSE [t.embedding] END |
    SET tr.embedding = {{VEC}}(vector))
  MERGE (s:Entity {id: t.subject_id})
  MERGE (o:Entity {id: t.object_id})
  MERGE (tr)-[:SUBJECT]->(s)
  MERGE (tr)-[:OBJECT]->(o)
  MERGE (tr)-[:MENTIONED_IN]->(c))
RETURN count(c) AS written
