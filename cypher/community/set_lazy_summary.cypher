// A summary written at question time for a community that had only its members' names
// (a broad question reached it), kept with its embedding so later questions rank by it.
// A community an LLM summarised at build time keeps its own.
UNWIND $rows AS row
MATCH (co:Community {id: row.id})
WHERE coalesce(co.summary_status, 'names') = 'names'
SET co.title = row.title, co.summary = row.summary, co.summary_status = 'lazy',
    co.embedding = {{VEC}}(row.embedding)
RETURN count(co) AS written
