// Communities in the store, with whether they have a summary.
MATCH (c:Community)
RETURN c.id AS id, c.level AS level, c.summary IS NOT NULL AS summarised
