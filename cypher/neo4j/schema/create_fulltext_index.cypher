// Full-text index on one text property of one label.
CREATE FULLTEXT INDEX {{index}} IF NOT EXISTS
FOR (n:{{text_label}}) ON EACH [n.{{text_property}}]
