// The most recent decisions first.
MATCH (d:Decision)
RETURN d.id AS id, d.question AS question, d.answer AS answer, d.sufficiency AS sufficiency,
       d.outcome AS outcome, d.created_at AS created_at
ORDER BY d.created_at DESC, d.id DESC
LIMIT $limit
