// Benchmark (scripts/bench_profiles.py): the synthetic query types with their
// centroids and sizes, and the one agent every synthetic decision is DECIDED by.
UNWIND $rows AS r
CREATE (:QueryType {id: r.id, label: r.label, centroid: r.centroid, count: r.count,
                    created_at: r.created_at})
WITH count(*) AS types
MERGE (a:Agent {id: $agent})
SET a.model = 'bench', a.prompt_version = 'bench'
RETURN types
