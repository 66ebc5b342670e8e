// Delete documents with their chunks in one atomic query (the chunks' edges go with
// them: mentions, NEXT, and the decisions' EVALUATED, CITED and RETRIEVED edges).
UNWIND $ids AS id
MATCH (d:Document {id: id})
OPTIONAL MATCH (c:Chunk)-[:PART_OF]->(d)
WITH d, collect(c) AS chunks
FOREACH (c IN chunks | DETACH DELETE c)
DETACH DELETE d
RETURN count(*) AS deleted
