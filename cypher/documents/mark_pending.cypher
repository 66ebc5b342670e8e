// Mark entities for the link stage's sweep: they may have lost triplets.
UNWIND $ids AS id
MERGE (p:Pending {id: id})
SET p.sweep = true
RETURN count(p) AS marked
