// What the judge sees of each candidate chunk: its text and document, the triplets
// it states (with event times) and the top-level communities those touch.
UNWIND $ids AS id
MATCH (c:Chunk {id: id})-[:PART_OF]->(d:Document)
OPTIONAL MATCH (t:Triplet)-[:MENTIONED_IN]->(c)
WITH c, d, collect(DISTINCT t) AS triplets
OPTIONAL MATCH (co:Community {level: 0})-[:SUMMARY_FOR]->(:Entity)<-[:SUBJECT|OBJECT]-(t2:Triplet)
      -[:MENTIONED_IN]->(c)
WITH c, d, triplets, collect(DISTINCT co.title) AS communities
RETURN c.id AS id, c.text AS text, d.title AS title,
       [t IN triplets | t.text][0..$max_triplets] AS triplets,
       [t IN triplets WHERE t.event_time IS NOT NULL | t.text + ' (' + t.event_time + ')']
         AS event_times,
       communities[0..3] AS communities
