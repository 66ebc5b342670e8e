// Write documents atomically, one query per batch: drop the older version of each
// source (its chunks; the entities it mentioned get a :Pending marker so the link
// stage sweeps orphans and re-aggregates RELATED), then merge the document, its chunks
// in order, its entities and triplets with their mentions. Entities are only written
// when new or when a better type or description arrives: on FalkorDB, setting any
// property of a vector-indexed node re-indexes its vector. The old version's other
// relationships (reasoning edges) are removed before, in bounded batches
// (build/detach_replaced), so this query only touches the documents' own structure.
// Old versions are read with pattern comprehensions, not OPTIONAL MATCH + collect, which
// Neo4j reports as "null value eliminated in set function" for every new document.
// Returns, per document, whether this query wrote it: created it, or extracted it another
// way (false: another build wrote the same version first), so each build counts what it
// wrote.
UNWIND range(0, size($rows) - 1) AS i
WITH i, $rows[i] AS doc
OPTIONAL MATCH (old:Document {source: doc.source})
WHERE old.id <> doc.id
WITH i, old,
     [(old)<-[:PART_OF]-(:Chunk)<-[:MENTIONED_IN]-(:Triplet)-[:SUBJECT|OBJECT]->(e:Entity) | e]
       AS oldes,
     [(c:Chunk)-[:PART_OF]->(old) | c] AS oldcs
FOREACH (e IN oldes | MERGE (p:Pending {id: e.id}) SET p.sweep = true)
FOREACH (c IN oldcs | DETACH DELETE c)
FOREACH (o IN CASE WHEN old IS NULL THEN [] ELSE [old] END | DETACH DELETE o)
WITH DISTINCT i
WITH $rows[i] AS doc
MERGE (d:Document {id: doc.id})
WITH doc, d,
     d.sha256 IS NULL OR coalesce(d.extract_mode, '') <> doc.extract_mode AS created
SET d.source = doc.source, d.title = doc.title, d.sha256 = doc.sha256,
    d.extract_mode = doc.extract_mode, d.chunks = size(doc.chunks), d.ingested_at = timestamp()
FOREACH (c IN doc.chunks |
  MERGE (ch:Chunk {id: c.id})
  SET ch.text = c.text, ch.position = c.position, ch.tokens = c.tokens,
      ch.extraction = c.extraction, ch.embedding = {{VEC}}(c.embedding)
  MERGE (ch)-[:PART_OF]->(d))
FOREACH (pair IN doc.next |
  MERGE (a:Chunk {id: pair[0]})
  MERGE (b:Chunk {id: pair[1]})
  MERGE (a)-[:NEXT]->(b))
FOREACH (e IN doc.entities |
  MERGE (en:Entity {id: e.id})
  ON CREATE SET en.name = e.name, en.type = e.type, en.description = e.description
  MERGE (:Pending {id: e.id})
  FOREACH (better IN CASE WHEN en.type = 'unknown' AND e.type <> 'unknown'
                          THEN [e.type] ELSE [] END | SET en.type = better)
  FOREACH (better IN CASE WHEN en.description = '' AND e.description <> ''
                          THEN [e.description] ELSE [] END | SET en.description = better)
  FOREACH (vector IN CASE WHEN e.embedding IS NULL THEN [] ELSE [e.embedding] END |
    SET en.embedding = {{VEC}}(vector)))
FOREACH (t IN doc.triplets |
  MERGE (tr:Triplet {id: t.id})
  ON CREATE SET tr.subject = t.subject, tr.predicate = t.predicate, tr.object = t.object,
                tr.text = t.text, tr.description = t.description, tr.event_time = t.event_time
  FOREACH (vector IN CASE WHEN t.embedding IS NULL THEN [] ELSE [t.embedding] END |
    SET tr.embedding = {{VEC}}(vector))
  MERGE (s:Entity {id: t.subject_id})
  MERGE (o:Entity {id: t.object_id})
  MERGE (tr)-[:SUBJECT]->(s)
  MERGE (tr)-[:OBJECT]->(o)
  FOREACH (cid IN t.chunk_ids |
    MERGE (c:Chunk {id: cid})
    MERGE (tr)-[:MENTIONED_IN]->(c)))
RETURN doc.id AS id, created
