// Note entities whose relations changed (the link stage's pending ones, those deleted
// included) for the next community run, which recomputes only the communities they touch.
UNWIND $rows AS row
CREATE (:CommunityChange {id: row.id})
RETURN count(*) AS marked
