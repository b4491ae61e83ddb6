// `pnpm bench`: Thresher side by side with bpmn-engine and with the limit of its storage, in one run.
//
//   node bench/run.mjs [--quick] [--json] [--profile[=SCENARIO[/TASK]]] [--runs N] [--only 1,2,5]
//   node bench/run.mjs --compare REF [--runs N] [--only 1,2,5] [--quick] [--json]
//
// Every measurement runs in a fresh child process (bench/lib/child.mjs): warm-up, then the measured section;
// the child's peak RSS is reported with it. Each figure is the median of --runs children (default 3; 1 with
// --quick), and the peer's or the limit's figure is measured in the same run, interleaved run by run. A
// figure is never a test: missed targets are reported, the exit code stays 0. See bench/README.md.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeMachine } from './lib/machine.mjs';
import { topSelfTime } from './lib/profile.mjs';
import { describeMachineLine, formatValue, markdownNotes, markdownTable, toPlainRows } from './lib/report.mjs';
import { runChild } from './lib/spawn.mjs';
import { medianOf } from './lib/stats.mjs';

const SCENARIOS = [
  'throughput-memory',
  'throughput-durable',
  'concurrency',
  'checkpoint',
  'recovery',
  'dehydration',
  'kill-resume',
  'sequential-loop',
  'workers',
  'decisions',
  'long-lived',
  'search',
  'camunda-api',
];

function parseArgs(argv) {
  const args = { quick: false, json: false, profile: false, runs: null, only: null, compare: null };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.split('=', 2);
    const value = () => inline ?? argv[++i];
    if (flag === '--quick') args.quick = true;
    else if (flag === '--json') args.json = true;
    else if (flag === '--profile') args.profile = inline ?? true;
    else if (flag === '--runs') args.runs = Number(value());
    else if (flag === '--compare') args.compare = value();
    else if (flag === '--only')
      args.only = value()
        .split(',')
        .map((s) => s.trim());
    else if (flag === '--help' || flag === '-h') {
      console.log(
        'usage: node bench/run.mjs [--quick] [--json] [--profile[=SCENARIO[/TASK]]] [--runs N] [--only 1,2,...]\n' +
          '       node bench/run.mjs --compare REF [--runs N] [--only 1,2,...] [--quick] [--json]',
      );
      process.exit(0);
    } else {
      console.error(`unknown option ${arg} (try --help)`);
      process.exit(2);
    }
  }
  if (args.runs !== null && !(Number.isInteger(args.runs) && args.runs >= 1)) {
    console.error('--runs takes a whole number ≥ 1');
    process.exit(2);
  }
  args.runs ??= args.quick ? 1 : 3;
  return args;
}

const args = parseArgs(process.argv.slice(2));
const started = Date.now();
const progress = (message) =>
  process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(0)}s] ${message}\n`);

if (args.compare !== null) {
  // Each side's round is a whole run of one child per measurement; --runs is the number of rounds per side.
  const passthrough = [...(args.only ? ['--only', args.only.join(',')] : []), ...(args.quick ? ['--quick'] : [])];
  if (typeof args.compare !== 'string' || args.compare === '') {
    console.error('--compare takes a git ref (a commit, a branch, a tag)');
    process.exit(2);
  }
  const { compareBuilds, comparisonTable } = await import('./lib/compare.mjs');
  const comparison = await compareBuilds({ ref: args.compare, rounds: args.runs, passthrough, progress });
  if (args.json) console.log(JSON.stringify(comparison, null, 2));
  else {
    console.log(
      `Thresher benchmark — this build against ${args.compare} (${comparison.sha.slice(0, 12)}), ${args.runs} interleaved round${args.runs === 1 ? '' : 's'} each; each figure the median of its side's rounds.\n`,
    );
    console.log(comparisonTable(comparison));
  }
  process.exit(0);
}

/** Thresher measurements of this run with their measured time, to profile the slowest. */
const measured = [];

const ctx = {
  quick: args.quick,
  runs: args.runs,
  shared: {},
  progress,
  /**
   * Run each spec `runs` times, interleaved (a, b, a, b, …) so drift hits both sides alike; resolves the
   * per-field medians by key. A spec is `{ scenario, task, options, side: 'thresher' | 'peer' | 'limit', runs }`.
   */
  async measure(specs) {
    const results = Object.fromEntries(Object.keys(specs).map((key) => [key, []]));
    const most = Math.max(...Object.values(specs).map((spec) => spec.runs ?? args.runs));
    for (let run = 0; run < most; run++) {
      for (const [key, spec] of Object.entries(specs)) {
        if (run >= (spec.runs ?? args.runs)) continue;
        progress(
          `${spec.scenario}/${spec.task} ${JSON.stringify(spec.options)} run ${run + 1}/${spec.runs ?? args.runs}`,
        );
        const result = await runChild(spec.scenario, spec.task, spec.options);
        results[key].push(result);
        if ((spec.side ?? 'thresher') === 'thresher' && typeof result.measuredMs === 'number') {
          measured.push({ scenario: spec.scenario, task: spec.task, options: spec.options, ms: result.measuredMs });
        }
      }
    }
    return Object.fromEntries(Object.entries(results).map(([key, list]) => [key, medianOf(list)]));
  },
};

const machine = describeMachine();
const rows = [];
const selected = args.only
  ? SCENARIOS.filter((name, index) => args.only.includes(String(index + 1)) || args.only.includes(name))
  : SCENARIOS;
// Scenario 1 provides the in-memory figures that durable throughput, concurrency and recover() are judged
// beside: run it when they run.
if (
  selected.some((name) => ['throughput-durable', 'concurrency', 'recovery'].includes(name)) &&
  !selected.includes('throughput-memory')
) {
  selected.unshift('throughput-memory');
}

progress(`${describeMachineLine(machine)}${args.quick ? ' — quick run' : ''}`);
for (const name of selected) {
  const scenario = await import(`./scenarios/${name}.mjs`);
  progress(`scenario ${scenario.id}: ${scenario.title}`);
  try {
    for (const row of await scenario.run(ctx)) rows.push({ id: scenario.id, ...row });
  } catch (error) {
    // one broken scenario does not take the others down; the table says what failed
    progress(`scenario ${scenario.id} failed: ${error?.stack ?? error}`);
    rows.push({
      id: scenario.id,
      scenario: scenario.title,
      measure: 'failed to run',
      thresher: {
        text: `error: ${String(error?.message ?? error)
          .split('\n')
          .slice(0, 2)
          .join(' ')}`,
      },
      status: 'error',
    });
  }
}

let profile = null;
if (args.profile && measured.length > 0) {
  // the slowest Thresher measurement of the run, or the one named: --profile=throughput-memory[/thresher]
  const [wantScenario, wantTask] = args.profile === true ? [] : String(args.profile).split('/');
  const candidates = measured.filter(
    (m) => (!wantScenario || m.scenario === wantScenario) && (!wantTask || m.task === wantTask),
  );
  if (candidates.length === 0) {
    console.error(`--profile=${args.profile}: no Thresher measurement of that name ran`);
    process.exit(2);
  }
  const slowest = candidates.reduce((a, b) => (b.ms > a.ms ? b : a));
  const dir = fileURLToPath(new URL('./profiles/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replaceAll(':', '-').replace(/\..*$/, '');
  const file = join(dir, `${slowest.scenario}-${slowest.task}-${stamp}.cpuprofile`);
  progress(`profiling the slowest measurement: ${slowest.scenario}/${slowest.task} (${Math.round(slowest.ms)} ms)`);
  await runChild(slowest.scenario, slowest.task, { ...slowest.options, profile: file });
  const { readFileSync } = await import('node:fs');
  const { idleShare, totalMs, top, packages } = topSelfTime(JSON.parse(readFileSync(file, 'utf8')));
  profile = {
    scenario: slowest.scenario,
    task: slowest.task,
    options: slowest.options,
    file,
    totalMs,
    idleShare,
    top,
    packages,
  };
}

const plainRows = toPlainRows(rows.map(({ id, ...row }) => ({ ...row, scenario: `${id}. ${row.scenario}` })));
const summary = {
  met: plainRows.filter((r) => r.status === 'MET').length,
  missed: plainRows.filter((r) => r.status === 'MISSED').length,
};
const document = {
  date: new Date().toISOString(),
  machine,
  options: { quick: args.quick, runs: args.runs, postgres: Boolean(process.env.THRESHER_PG_URL) },
  peer: ctx.shared.peerVersion ? `bpmn-engine ${ctx.shared.peerVersion}` : null,
  rows: plainRows,
  summary,
  profile,
  seconds: Math.round((Date.now() - started) / 1000),
};

if (args.json) {
  console.log(JSON.stringify(document, null, 2));
} else {
  const out = [];
  out.push(
    `Thresher benchmark — ${document.date.slice(0, 10)}${args.quick ? ' (quick: small N, 1 run — not a result)' : ''}`,
  );
  out.push(`Machine: ${describeMachineLine(machine)}`);
  out.push(
    `Each figure: median of ${args.runs} run${args.runs === 1 ? '' : 's'}, each a fresh process after a warm-up; ratio = Thresher ÷ peer-or-limit; status against the target (no exit code).`,
  );
  out.push('');
  out.push(markdownTable(plainRows));
  out.push('');
  const notes = markdownNotes(plainRows);
  if (notes) out.push(notes, '');
  out.push(`Targets: ${summary.met} met, ${summary.missed} missed. Took ${document.seconds} s.`);
  if (profile) {
    out.push(
      '',
      `CPU profile of ${profile.scenario}/${profile.task} ${JSON.stringify(profile.options)}: ${profile.file}`,
      `${Math.round(profile.totalMs).toLocaleString('en-US')} ms sampled, ${(profile.idleShare * 100).toFixed(1)}% idle (waiting on I/O). Top self time:`,
    );
    out.push(
      `Self time by package: ${profile.packages
        .slice(0, 8)
        .map((p) => `${p.name} ${(p.share * 100).toFixed(1)}%`)
        .join(', ')}`,
    );
    for (const entry of profile.top) {
      out.push(
        `  ${formatValue({ value: entry.selfMs, unit: 'ms' }).padStart(10)}  ${(entry.share * 100).toFixed(1).padStart(5)}%  ${entry.name}  ${entry.where}`,
      );
    }
  }
  console.log(out.join('\n'));
}
