// Exact-match index on one property of a label (e.g. Document.source, Decision.query_type).
CREATE INDEX FOR (n:{{label}}) ON (n.{{property}})
