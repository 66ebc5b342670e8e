// HNSW cosine index on the label's embedding; efRuntime >= 100 for good recall.
CREATE VECTOR INDEX FOR (n:{{vector_label}}) ON (n.embedding)
OPTIONS {dimension: $dimension, similarityFunction: 'cosine', M: 16, efConstruction: 200,
         efRuntime: $ef_runtime}
