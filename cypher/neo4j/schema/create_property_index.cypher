// Exact-match index on one property of a label (e.g. Document.source, Decision.query_type).
CREATE INDEX {{index}} IF NOT EXISTS
FOR (n:{{label}}) ON (n.{{property}})
