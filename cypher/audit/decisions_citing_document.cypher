// Decisions that cited a document (given by its id, source path or title), newest first,
// with the cited passage and the decision's outcome.
//   graphmind cypher audit/decisions_citing_document -p document="Lise Meitner"
//   Neo4j Browser: :param document => 'Lise Meitner'
MATCH (doc:Document)
WHERE doc.id = $document OR doc.source = $document OR doc.title = $document
MATCH (doc)<-[:PART_OF]-(c:Chunk)<-[cited:CITED]-(d:Decision)
RETURN d.created_at AS at, d.id AS decision, d.question AS question, d.answer AS answer,
       d.outcome AS outcome, cited.rank AS citation, left(c.text, 80) AS passage
ORDER BY at DESC
