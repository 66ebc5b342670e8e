// Exact-match index on the label's id; GRAPH.CONSTRAINT needs it for uniqueness.
CREATE INDEX FOR (n:{{label}}) ON (n.id)
