// Uniqueness of the label's id (backed by a range index).
CREATE CONSTRAINT {{index}} IF NOT EXISTS
FOR (n:{{label}}) REQUIRE n.id IS UNIQUE
