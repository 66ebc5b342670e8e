// Benchmark clean-up: the index neo4j-graphrag's writer creates for its temporary ids.
DROP INDEX __entity__tmp_internal_id IF EXISTS
