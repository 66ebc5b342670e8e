// What the store holds for these sources: document id and how it was extracted.
UNWIND $sources AS source
MATCH (d:Document {source: source})
RETURN d.source AS source, d.id AS id, d.extract_mode AS extract_mode
