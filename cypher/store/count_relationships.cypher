// Number of relationships in the graph.
MATCH ()-[r]->()
RETURN count(r) AS count
