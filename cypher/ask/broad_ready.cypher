// How many communities the store holds (a broad question needs some).
MATCH (co:Community)
RETURN count(co) AS communities
