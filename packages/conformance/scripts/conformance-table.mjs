#!/usr/bin/env node
// Writes packages/conformance/CONFORMANCE.md from the conformance suite's case table (src/cases.ts),
// through the built package: run `pnpm conformance:table`, which builds it first. `--check` writes nothing and
// exits 1 when the file is out of date (packages/conformance/test/conformance-table.test.ts checks the same).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const { caseTableProblems, renderConformanceTable } = await import('../dist/table.js');
const target = fileURLToPath(new URL('../CONFORMANCE.md', import.meta.url));

const problems = caseTableProblems();
if (problems.length > 0) {
  process.stderr.write(`the case table has problems:\n${problems.map((problem) => `  - ${problem}`).join('\n')}\n`);
  process.exit(1);
}
const rendered = renderConformanceTable();
let current = '';
try {
  current = readFileSync(target, 'utf8');
} catch {
  // Not written yet.
}
if (process.argv.includes('--check')) {
  if (current !== rendered) {
    process.stderr.write(`${target} is out of date with the case table; run pnpm conformance:table\n`);
    process.exit(1);
  }
  process.stdout.write(`${target} is up to date\n`);
} else if (current === rendered) {
  process.stdout.write(`${target} is up to date\n`);
} else {
  writeFileSync(target, rendered);
  process.stdout.write(`wrote ${target}\n`);
}
