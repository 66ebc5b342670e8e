// An evaluation on a store the user runs: which run the store belongs to, and which
// configuration's memory (reasoning graph) it holds now.
MATCH (m:GraphMindMeta {id: $id})
SET m.eval_run = $run, m.eval_config = $config
RETURN m.id AS id
