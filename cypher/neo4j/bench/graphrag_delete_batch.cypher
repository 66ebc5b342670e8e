// Benchmark clean-up: delete up to $limit nodes neo4j-graphrag's SimpleKGPipeline wrote
// (all carry __KGBuilder__: documents, chunks, entities) with their relationships.
MATCH (n:__KGBuilder__)
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted
