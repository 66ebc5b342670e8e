// Drop up to $limit change markers (the community run that read them is written).
MATCH (m:CommunityChange)
WITH m LIMIT $limit
DELETE m
RETURN count(*) AS deleted
