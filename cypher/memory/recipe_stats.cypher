// How each retrieval recipe has fared on one query type, from the counts kept on write
// (decisions with feedback, and how many of them were correct); memory/planner_configs
// is the same by traversal.
MATCH (qt:QueryType {id: $query_type})
WITH coalesce(qt.recipes, []) AS names, coalesce(qt.recipe_support, []) AS support,
     coalesce(qt.recipe_correct, []) AS correct
UNWIND range(0, size(names) - 1) AS i
WITH names[i] AS config, support[i] AS support, correct[i] AS correct
WHERE support > 0
RETURN config, support, correct
ORDER BY config
