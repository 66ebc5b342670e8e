#!/usr/bin/env node
/**
 * lint_cypher.mjs - offline linter for GraphMind's Neo4j Cypher queries.
 *
 * Usage:   node scripts/lint_cypher.mjs QUERIES.json     (or `-` to read stdin)
 * Input:   a JSON array of {"name": string, "text": string}.
 * Output:  one line per diagnostic, `NAME:LINE:COL: SEVERITY: MESSAGE` (1-based),
 *          then `linted N queries: M diagnostics`.
 * Exit:    0 no diagnostics at all, 1 at least one (errors AND warnings count),
 *          2 bad input (unreadable file, invalid JSON, not an array of queries)
 *          or the package is not installed (`npm ci --prefix scripts`).
 *
 * Uses `lintCypherQuery` from @neo4j-cypher/language-support (Neo4j's own ANTLR
 * grammar plus Neo4j's semantic analysis compiled to JS), with the dialect fixed
 * to Cypher 5 (a query may still opt in to another one with a `CYPHER 25` prefix).
 * The dbSchema gives no labels, types, property keys or parameters, so there are
 * no schema warnings, and "Parameter $x is not defined" errors are dropped
 * (isNotParamError), as the package does itself when not connected to a server.
 * Procedures and functions: the package ships, as `testData.mockSchema`, a Cypher 5
 * signature snapshot of a Neo4j server; its built-in entries are passed in so that
 * unknown names, wrong argument counts/types and unknown YIELD columns are flagged.
 * gds.* and apoc.* entries are left out (the plugin versions may differ) and any
 * "not present" diagnostic for such a name is dropped: plugins never fail the lint.
 */
import { readFileSync } from 'node:fs';

const VERSION = 'CYPHER 5';
const PLUGIN = /^(gds|apoc)\./i;
const SEVERITY = { 1: 'error', 2: 'warning', 3: 'info', 4: 'hint' };

function fail(message) {
  console.error(`lint_cypher: ${message}`);
  process.exit(2);
}

function builtins(registry) {
  return Object.fromEntries(Object.entries(registry ?? {}).filter(([name]) => !PLUGIN.test(name)));
}

const lib = await import('@neo4j-cypher/language-support').catch((err) =>
  fail(`${err.message}\nrun: npm ci --prefix scripts`));
const { lintCypherQuery, isNotParamError } = lib;
const snapshot = lib.testData?.mockSchema;
const dbSchema = { defaultLanguage: VERSION };
if (snapshot?.procedures?.[VERSION] && snapshot?.functions?.[VERSION]) {
  dbSchema.procedures = { [VERSION]: builtins(snapshot.procedures[VERSION]) };
  dbSchema.functions = { [VERSION]: builtins(snapshot.functions[VERSION]) };
} else {
  console.error('lint_cypher: no procedure/function signatures shipped; names are not checked');
}

const source = process.argv[2];
if (!source) fail('usage: lint_cypher.mjs QUERIES.json | -');
let queries;
try {
  queries = JSON.parse(readFileSync(source === '-' ? 0 : source, 'utf8'));
} catch (err) {
  fail(`cannot read or parse ${source === '-' ? 'stdin' : source}: ${err.message}`);
}
if (!Array.isArray(queries)) fail('input is not a JSON array');
queries.forEach((q, i) => {
  if (typeof q?.name !== 'string' || typeof q?.text !== 'string') {
    fail(`item ${i} is not an object with string "name" and "text"`);
  }
});

let count = 0;
for (const { name, text } of queries) {
  let diagnostics;
  try {
    diagnostics = lintCypherQuery(text, dbSchema, { consoleCommandsEnabled: false }).diagnostics;
  } catch (err) {
    diagnostics = [{ severity: 1, range: { start: { line: 0, character: 0 } }, message: `linter crashed: ${err.message}` }];
  }
  for (const d of diagnostics) {
    if (!isNotParamError(d)) continue;
    if (/^(Procedure|Function) \S+ is not present in the database/.test(d.message) &&
        PLUGIN.test(d.message.split(' ')[1])) continue;
    const { line, character } = d.range.start;
    const message = d.message.replace(/\s+/g, ' ').trim();
    console.log(`${name}:${line + 1}:${character + 1}: ${SEVERITY[d.severity] ?? 'error'}: ${message}`);
    count += 1;
  }
}
console.log(`linted ${queries.length} queries: ${count} diagnostics`);
process.exitCode = count > 0 ? 1 : 0;
