// Benchmark baseline: plain batched upsert of entities.
UNWIND $rows AS r
MERGE (e:Entity {id: r.id})
SET e.name = r.name, e.type = r.type, e.description = r.description,
    e.embedding = {{VEC}}(r.embedding)
