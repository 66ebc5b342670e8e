// Every index with its per-property types and state (OPERATIONAL / UNDER CONSTRUCTION).
CALL db.indexes() YIELD label, properties, types, status
RETURN label, properties, types, status
