// Cosine vector index on the label's embedding.
CREATE VECTOR INDEX {{index}} IF NOT EXISTS
FOR (n:{{vector_label}}) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimension), `vector.similarity_function`: 'cosine'}}
