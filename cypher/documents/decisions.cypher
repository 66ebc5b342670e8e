// Decisions that judged or cited any of these chunks, triplets or communities.
UNWIND $chunks AS id
MATCH (d:Decision)-[r:EVALUATED|CITED]->(:Chunk {id: id})
RETURN d.id AS decision, type(r) AS kind, 'Chunk' AS label, id
UNION ALL
UNWIND $triplets AS id
MATCH (d:Decision)-[r:EVALUATED|CITED]->(:Triplet {id: id})
RETURN d.id AS decision, type(r) AS kind, 'Triplet' AS label, id
UNION ALL
UNWIND $communities AS id
MATCH (d:Decision)-[r:EVALUATED|CITED]->(:Community {id: id})
RETURN d.id AS decision, type(r) AS kind, 'Community' AS label, id
