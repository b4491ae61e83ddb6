#!/usr/bin/env node
// Extracts feel-scala's own test cases (FEEL expression/unary-tests, input, expected result) from a checkout of
// camunda/feel-scala into packages/feel/test/data/feel-scala/<Suite>.json, and rewrites the counts table of that
// folder's README. The committed JSON is the product; tests never run this script.
//
//   node packages/feel/scripts/extract-feel-scala.mjs <feel-scala checkout> [--out <dir>] [--check]
//
// --check writes nothing and exits 1 when the committed data differs from what the checkout yields.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractSuite } from './feel-scala/suite-cases.mjs';

const args = process.argv.slice(2);
const checkout = args.find((a) => !a.startsWith('--') && args[args.indexOf(a) - 1] !== '--out');
if (!checkout) {
  process.stderr.write('usage: extract-feel-scala.mjs <feel-scala checkout> [--out <dir>] [--check]\n');
  process.exit(2);
}
const outIndex = args.indexOf('--out');
const out = outIndex >= 0 ? args[outIndex + 1] : fileURLToPath(new URL('../test/data/feel-scala/', import.meta.url));
const check = args.includes('--check');

function scalaFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return scalaFiles(path);
    return entry.name.endsWith('Test.scala') ? [path] : [];
  });
}

/** One case per line: reviewable diffs, and still plain JSON. */
function render(suite) {
  const lines = suite.cases.map((c) => `    ${JSON.stringify(c)}`);
  return `{\n  "suite": ${JSON.stringify(suite.suite)},\n  "source": ${JSON.stringify(suite.source)},\n  "cases": [\n${lines.join(',\n')}\n  ]\n}\n`;
}

/** A markdown table padded the way biome formats one (so `pnpm lint` accepts the generated README). */
function markdownTable(header, alignRight, rows) {
  const width = (text) => [...text].length;
  const widths = header.map((h, k) => Math.max(3, width(h), ...rows.map((r) => width(r[k]))));
  const pad = (text, k) => {
    const fill = ' '.repeat(widths[k] - width(text));
    return alignRight[k] ? fill + text : text + fill;
  };
  const line = (cells) => `| ${cells.map(pad).join(' | ')} |`;
  const rule = `| ${widths.map((w, k) => (alignRight[k] ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w))).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

function countsTable(results) {
  const rows = [];
  let totalCases = 0;
  let totalSkipped = 0;
  for (const r of [...results].sort((a, b) => a.suite.localeCompare(b.suite))) {
    if (r.outOfScope) continue;
    const reasons = new Map();
    for (const s of r.skipped) reasons.set(s.reason, (reasons.get(s.reason) ?? 0) + 1);
    const why = [...reasons].map(([reason, n]) => `${n} × ${reason.replaceAll('|', '\\|')}`).join('; ');
    rows.push([r.suite, r.harness, String(r.cases.length), String(r.skipped.length), why || '—']);
    totalCases += r.cases.length;
    totalSkipped += r.skipped.length;
  }
  rows.push(['**total**', '', `**${totalCases}**`, `**${totalSkipped}**`, '']);
  const table = markdownTable(
    ['suite', 'harness', 'cases', 'skipped', 'why skipped'],
    [false, false, true, true, false],
    rows,
  );
  const outOfScope = results.filter((r) => r.outOfScope).map((r) => `- \`${r.source}\`: ${r.outOfScope}`);
  return `${table}\n\nSuites not extracted (they do not evaluate FEEL through either harness):\n\n${outOfScope.join('\n')}\n`;
}

const testRoot = join(checkout, 'src/test/scala');
const results = scalaFiles(testRoot)
  .sort()
  .map((file) => {
    const source = relative(checkout, file);
    return { ...extractSuite(readFileSync(file, 'utf8'), source), source };
  });

let stale = false;
const write = (path, text) => {
  let current = '';
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    // Not written yet.
  }
  if (current === text) return;
  if (check) {
    process.stderr.write(`${path} is out of date\n`);
    stale = true;
  } else {
    writeFileSync(path, text);
  }
};

const written = new Set();
for (const r of results) {
  if (r.cases.length === 0) continue;
  write(join(out, `${r.suite}.json`), render(r));
  written.add(`${r.suite}.json`);
}
// A suite file the checkout no longer yields would otherwise linger with cases from another version.
for (const name of readdirSync(out).filter((n) => n.endsWith('.json') && !written.has(n))) {
  if (check) {
    process.stderr.write(`${join(out, name)} is not produced by this checkout\n`);
    stale = true;
  } else {
    rmSync(join(out, name));
  }
}
const readmePath = join(out, 'README.md');
const readme = readFileSync(readmePath, 'utf8');
const start = '<!-- counts:start -->';
const end = '<!-- counts:end -->';
const from = readme.indexOf(start);
const to = readme.indexOf(end);
if (from < 0 || to < 0) {
  process.stderr.write(`${readmePath} has no ${start} … ${end} section for the counts\n`);
  process.exit(1);
}
write(readmePath, `${readme.slice(0, from + start.length)}\n${countsTable(results)}${readme.slice(to)}`);

const total = results.reduce((n, r) => n + r.cases.length, 0);
const skipped = results.reduce((n, r) => n + r.skipped.length, 0);
process.stdout.write(`${total} cases extracted, ${skipped} skipped, from ${results.length} suites\n`);
if (stale) process.exit(1);
