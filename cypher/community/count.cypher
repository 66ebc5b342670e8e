// How many communities the store holds (none before the first community run).
MATCH (co:Community)
RETURN count(co) AS communities
