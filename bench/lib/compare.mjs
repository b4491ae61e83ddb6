// `pnpm bench --compare REF`: this build and the build of REF, run interleaved (REF, this, this, REF, …), each
// round a full `run.mjs --runs 1 --json` of the chosen scenarios; per row, the median of each side's rounds and
// their ratio. A change's effect in one command, with the machine's drift spread over both sides.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatValue } from './report.mjs';
import { median } from './stats.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Outside the repository, so no tool that walks it (lint, tests) meets a second copy.
const BUILDS = join(tmpdir(), 'thresher-bench-builds');
const PNPM = ['-y', 'pnpm@12.4.2'];

function git(args, cwd = ROOT) {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

function npx(args, cwd, progress) {
  progress(`${cwd}: pnpm ${args.join(' ')}`);
  execFileSync('npx', [...PNPM, ...args], { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** A worktree of `ref` under the temporary directory, installed and built once per commit; returns it. */
export function buildOf(ref, progress) {
  let sha;
  try {
    sha = git(['rev-parse', '--verify', `${ref}^{commit}`]);
  } catch {
    throw new Error(`--compare ${ref}: not a commit of this repository`);
  }
  const dir = join(BUILDS, sha.slice(0, 12));
  if (existsSync(join(dir, 'packages', 'cli', 'dist', 'main.js'))) return { sha, dir };
  mkdirSync(BUILDS, { recursive: true });
  if (!existsSync(join(dir, '.git'))) git(['worktree', 'add', '--force', '--detach', dir, sha]);
  npx(['install', '--frozen-lockfile'], dir, progress);
  npx(['run', 'build'], dir, progress);
  return { sha, dir };
}

/** One full bench run of the build in `dir`, as its JSON document. */
function benchOnce(dir, passthrough) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(dir, 'bench', 'run.mjs'), '--runs', '1', '--json', ...passthrough], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`bench in ${dir} exited ${code}`));
      try {
        resolve(JSON.parse(stdout));
      } catch (error) {
        reject(new Error(`bench in ${dir} printed no JSON document: ${error}`));
      }
    });
  });
}

/** Rows by scenario and measure: what both sides measured alike. */
const keyOf = (row) => `${row.scenario} — ${row.measure}`;

/**
 * Run `rounds` rounds of both builds, alternating which goes first, and return the comparison: per row the
 * median of each side's Thresher figures and their ratio (this ÷ REF).
 */
export async function compareBuilds({ ref, rounds, passthrough, progress }) {
  const base = buildOf(ref, progress);
  const sides = { ref: [], head: [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ['ref', 'head'] : ['head', 'ref'];
    for (const side of order) {
      progress(`round ${round + 1}/${rounds}: ${side === 'ref' ? `${ref} (${base.sha.slice(0, 12)})` : 'this build'}`);
      sides[side].push(await benchOnce(side === 'ref' ? base.dir : ROOT, passthrough));
    }
  }
  const rows = new Map();
  for (const [side, documents] of Object.entries(sides)) {
    for (const document of documents) {
      for (const row of document.rows) {
        const value = row.thresher?.value;
        if (typeof value !== 'number') continue;
        const entry = rows.get(keyOf(row)) ?? {
          scenario: row.scenario,
          measure: row.measure,
          unit: row.thresher.unit,
          ref: [],
          head: [],
        };
        entry[side].push(value);
        rows.set(keyOf(row), entry);
      }
    }
  }
  return {
    ref,
    sha: base.sha,
    rounds,
    rows: [...rows.values()].map((row) => {
      const refMedian = median(row.ref);
      const headMedian = median(row.head);
      return {
        scenario: row.scenario,
        measure: row.measure,
        unit: row.unit,
        ref: refMedian,
        head: headMedian,
        refRuns: row.ref,
        headRuns: row.head,
        ratio: refMedian && headMedian !== null ? headMedian / refMedian : null,
      };
    }),
  };
}

/** The comparison as a Markdown table. */
export function comparisonTable(comparison) {
  const lines = [
    `| scenario | measure | ${comparison.ref} (${comparison.sha.slice(0, 12)}) | this build | this ÷ ${comparison.ref} |`,
    '|---|---|---|---|---|',
  ];
  for (const row of comparison.rows) {
    const figure = (value) => (value === null ? '—' : formatValue({ value, unit: row.unit }));
    const ratio = row.ratio === null ? '—' : `${row.ratio.toFixed(3)}×`;
    lines.push(`| ${row.scenario} | ${row.measure} | ${figure(row.ref)} | ${figure(row.head)} | ${ratio} |`);
  }
  return lines.join('\n');
}
