// Vector indexes with their configuration (to find ones created with quantization on).
SHOW VECTOR INDEXES YIELD name, options
RETURN name, options.indexConfig AS config
