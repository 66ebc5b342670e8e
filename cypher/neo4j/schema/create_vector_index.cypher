// Cosine vector index on the label's embedding, with full-precision vectors: a quantized
// index (5.26's default) scores approximately and misses exact neighbours.
CREATE VECTOR INDEX {{index}} IF NOT EXISTS
FOR (n:{{vector_label}}) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimension),
                       `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: false}}
