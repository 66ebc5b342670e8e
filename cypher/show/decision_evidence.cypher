// The chunks a decision judged or cited, for `graphmind show`: the final verdict and
// reason (EVALUATED, null when only cited) and the citation rank (CITED, null when not).
MATCH (d:Decision {id: $id})
OPTIONAL MATCH (d)-[e:EVALUATED]->(judged:Chunk)
WITH d, collect({chunk: judged.id, step: e.step, verdict: e.verdict, reason: e.reason}) AS judged
OPTIONAL MATCH (d)-[r:CITED]->(cited:Chunk)
RETURN judged, collect({chunk: cited.id, rank: r.rank}) AS cited
