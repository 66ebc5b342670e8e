// The episodes covering chunks of these documents, with whether they have a summary.
UNWIND $ids AS id
MATCH (:Document {id: id})<-[:PART_OF]-(:Chunk)<-[:COVERS]-(e:Episode)
RETURN DISTINCT e.id AS id, e.summary IS NOT NULL AS summarised,
       e.summary_status AS summary_status
