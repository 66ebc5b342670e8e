// The communities whose entities the given chunks state (the passages nearest a broad
// question lead to the parts of the graph it is about), per chunk.
UNWIND $ids AS id
MATCH (c:Chunk {id: id})<-[:MENTIONED_IN]-(:Triplet)-[:SUBJECT|OBJECT]->(:Entity)
      <-[:SUMMARY_FOR]-(co:Community)
RETURN id AS chunk, collect(DISTINCT co.id) AS communities
