// What the broad path reads of each community it reached: title, summary and how the
// summary was made, level, size and parent (to keep a community and its own parent from
// both being read).
UNWIND $ids AS id
MATCH (co:Community {id: id})
OPTIONAL MATCH (co)-[:PARENT]->(p:Community)
RETURN co.id AS id, co.level AS level, co.size AS size, co.title AS title,
       co.summary AS summary, co.summary_status AS status, p.id AS parent
