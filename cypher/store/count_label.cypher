// Number of nodes with one GraphMind label.
MATCH (n:{{label}})
RETURN count(n) AS count
