// The stored vectors of these triplets: the graph expansion scores the relations they
// state against the diagnosed gap without embedding the relations again.
UNWIND $ids AS id
MATCH (t:Triplet {id: id})
RETURN t.id AS id, t.embedding AS embedding
