// What the judge sees of each candidate chunk: its text and document, the triplets
// it states (with event times; not those whose predicate is only $connectives words,
// which say no more than the passage) and the top-level communities those touch. Pattern
// comprehensions, not OPTIONAL MATCH + collect, so a chunk without triplets is no
// "null value eliminated" warning on Neo4j.
UNWIND $ids AS id
MATCH (c:Chunk {id: id})-[:PART_OF]->(d:Document)
WITH c, d, [(t:Triplet)-[:MENTIONED_IN]->(c) | t] AS triplets,
     [(co:Community {level: 0})-[:SUMMARY_FOR]->(:Entity)<-[:SUBJECT|OBJECT]-(:Triplet)
       -[:MENTIONED_IN]->(c) WHERE co.title IS NOT NULL | co.title] AS titles
WITH c, d, triplets,
     reduce(seen = [], title IN titles |
       CASE WHEN title IN seen THEN seen ELSE seen + [title] END) AS communities
RETURN c.id AS id, c.text AS text, d.title AS title,
       [t IN triplets
        WHERE any(w IN split(toLower(t.predicate), ' ') WHERE NOT w IN $connectives)
        | t.text][0..$max_triplets] AS triplets,
       [t IN triplets WHERE t.event_time IS NOT NULL | t.text + ' (' + t.event_time + ')']
         AS event_times,
       communities[0..3] AS communities
