// What was derived from these chunks and entities: communities summarising any of the
// entities, and episodes covering any of the chunks (both go stale with them).
UNWIND $entities AS eid
MATCH (c:Community)-[:SUMMARY_FOR]->(:Entity {id: eid})
RETURN DISTINCT 'Community' AS label, c.id AS id
UNION ALL
UNWIND $chunks AS cid
MATCH (ep:Episode)-[:COVERS]->(:Chunk {id: cid})
RETURN DISTINCT 'Episode' AS label, ep.id AS id
