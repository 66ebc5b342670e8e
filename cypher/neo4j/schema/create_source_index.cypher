// Documents are looked up by source when a re-build replaces a changed one.
CREATE INDEX document_source IF NOT EXISTS
FOR (n:Document) ON (n.source)
