// Documents are looked up by source when a re-build replaces a changed one.
CREATE INDEX FOR (n:Document) ON (n.source)
