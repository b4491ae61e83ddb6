#!/usr/bin/env node
/**
 * `pnpm tck`: runs the DMN TCK's test cases on `@thresher/dmn`, prints passed and failed per compliance
 * level and in all, and writes the TCK's results files (`tck_results.csv`, `tck_results.properties`).
 *
 * @module
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type CaseResult, folders, runFolder } from './runner.js';

const LEVELS = ['compliance-level-2', 'compliance-level-3'] as const;
// Output piped into `head` closes early: the results files are still written.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

const { values } = parseArgs({
  options: {
    level: { type: 'string' },
    folder: { type: 'string' },
    verbose: { type: 'boolean', default: false },
    out: { type: 'string', default: join(root, 'tck/results/thresher') },
    tck: { type: 'string', default: join(root, 'tck/TestCases') },
  },
});

const levels = values.level ? LEVELS.filter((level) => level.endsWith(values.level!)) : [...LEVELS];
if (levels.length === 0) {
  process.stderr.write(`thresher-tck: --level ${values.level}: expected 2 or 3\n`);
  process.exit(2);
}

const results: CaseResult[] = [];
for (const level of levels) {
  for (const folder of folders(values.tck, level)) {
    if (values.folder && !folder.includes(values.folder)) continue;
    const ran = runFolder(values.tck, folder);
    results.push(...ran);
    if (values.verbose) {
      for (const result of ran.filter((r) => r.status !== 'SUCCESS')) {
        process.stdout.write(`  ${folder} ${result.file} ${result.id}: ${result.message}\n`);
      }
    }
  }
}

// Nothing is skipped: a case Thresher cannot run (a model it refuses, an unknown decision) fails, saying why.
const summary = (rows: CaseResult[]) => {
  const passed = rows.filter((row) => row.status === 'SUCCESS').length;
  const skipped = rows.filter((row) => row.status === 'IGNORED').length;
  return `${passed} passed, ${rows.length - passed - skipped} failed, ${skipped} skipped, of ${rows.length} test cases`;
};
for (const level of levels) {
  process.stdout.write(`${level}: ${summary(results.filter((row) => row.folder.startsWith(level)))}\n`);
}
process.stdout.write(`total: ${summary(results)}\n`);
// The FEEL part of the kit: level-3 folders about FEEL itself, counted by result node as the FEEL issue asks.
const feelRows = results.filter((row) => row.folder.startsWith('compliance-level-3/') && /feel/i.test(row.folder));
const feelPassed = feelRows.reduce((sum, row) => sum + row.nodesPassed, 0);
const feelAll = feelRows.reduce((sum, row) => sum + row.nodes, 0);
process.stdout.write(`FEEL folders: ${feelPassed} of ${feelAll} result nodes passed\n`);

const csvField = (text: string) => `"${text.replaceAll('"', '""').replaceAll(/\r?\n/g, ' ')}"`;
mkdirSync(values.out, { recursive: true });
writeFileSync(
  join(values.out, 'tck_results.csv'),
  results
    .map((row) => [row.folder, row.file, row.id, row.status, row.message].map(csvField).join(','))
    .join('\n')
    .concat('\n'),
);
const version = JSON.parse(readFileSync(join(root, 'packages/dmn/package.json'), 'utf8')).version as string;
writeFileSync(
  join(values.out, 'tck_results.properties'),
  [
    'vendor.name=Thresher',
    'product.name=@thresher/dmn',
    `product.version=${version}`,
    'product.comment=The DMN engine of Thresher, a durable BPMN workflow engine for Node.js.',
    `last.update=${new Date().toISOString().slice(0, 10)}`,
    '',
  ].join('\n'),
);
process.stdout.write(`results written to ${values.out}\n`);
