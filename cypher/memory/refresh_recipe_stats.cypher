// Recompute every query type's recipe counts from its decisions with feedback (what an
// older store gets once): memory/planner_configs, the traversal, for every type at once.
MATCH (qt:QueryType)
SET qt.recipes = [], qt.recipe_support = [], qt.recipe_correct = []
WITH count(qt) AS reset
MATCH (d:Decision)-[r:RETRIEVED_VIA]->(:Query)
WHERE d.outcome IN ['correct', 'incorrect'] AND d.query_type IS NOT NULL
  AND r.config IS NOT NULL
WITH d.query_type AS type, r.config AS config, count(d) AS support,
     sum(CASE WHEN d.outcome = 'correct' THEN 1 ELSE 0 END) AS correct
ORDER BY type, config
WITH type, collect(config) AS names, collect(support) AS supports, collect(correct) AS corrects
MATCH (qt:QueryType {id: type})
SET qt.recipes = names, qt.recipe_support = supports, qt.recipe_correct = corrects
RETURN count(qt) AS types
