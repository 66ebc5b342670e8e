// Full-text index on one text property of one label.
CREATE FULLTEXT INDEX FOR (n:{{text_label}}) ON (n.{{text_property}})
