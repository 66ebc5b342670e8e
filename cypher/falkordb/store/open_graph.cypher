// A write round trip that creates the graph key, so reads on a new store see an empty graph.
RETURN 1 AS ok
