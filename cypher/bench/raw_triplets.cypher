// Benchmark baseline: plain batched upsert of triplets with subject and object edges.
UNWIND $rows AS r
MATCH (s:Entity {id: r.subject_id})
MATCH (o:Entity {id: r.object_id})
MERGE (t:Triplet {id: r.id})
SET t.subject = r.subject, t.predicate = r.predicate, t.object = r.object, t.text = r.text,
    t.description = r.description, t.event_time = r.event_time,
    t.embedding = {{VEC}}(r.embedding)
MERGE (t)-[:SUBJECT]->(s)
MERGE (t)-[:OBJECT]->(o)
