// The cosine of these triplets' stored vectors with the diagnosed gap's vector,
// computed where the vectors are (one number per triplet crosses the wire, not 384):
// the graph expansion scores the relations the triplets state without embedding them.
UNWIND $ids AS id
MATCH (t:Triplet {id: id})
WHERE t.embedding IS NOT NULL
RETURN t.id AS id, 2.0 * vector.similarity.cosine(t.embedding, $vector) - 1.0 AS similarity
