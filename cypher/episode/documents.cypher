// Every document id, for an episodic build over the whole store.
MATCH (d:Document)
RETURN d.id AS id
ORDER BY id
