// `pnpm soak`: every fixture under fixtures/ SIGKILLed at random instants, many times over, to find the rare
// instant one run of `thresher test --kill random:N` would miss.
//
//   node bench/sigkill-soak.mjs [--runs 50] [--kills 5] [--jobs 2] [--seed BASE] [--timeout-min 10] [PATH...]
//
// Run i of a fixture is `thresher test FILE --kill random:KILLS --seed BASE+i --json`, a fresh process each
// (the built CLI: `pnpm soak` builds first), up to --jobs at once, run by run over every fixture. Each failure
// is printed with the command that replays it; the seed fixes the kill instants as fractions of the child's
// uninterrupted run time, so a replay on a busy machine lands close to, not exactly on, the same instants.
// Not a test, never in CI: exit 1 when anything failed, 2 for a usage error.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = fileURLToPath(new URL('../packages/cli/dist/main.js', import.meta.url));
const USAGE =
  'usage: node bench/sigkill-soak.mjs [--runs 50] [--kills 5] [--jobs 2] [--seed BASE] [--timeout-min 10] [PATH...]';

function parseArgs(argv) {
  const args = { runs: 50, kills: 5, jobs: 2, seed: 20_261_130, timeoutMin: 10, paths: [] };
  const names = {
    '--runs': 'runs',
    '--kills': 'kills',
    '--jobs': 'jobs',
    '--seed': 'seed',
    '--timeout-min': 'timeoutMin',
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=', 2);
    if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    }
    if (!flag.startsWith('--')) {
      args.paths.push(argv[i]);
      continue;
    }
    const name = names[flag];
    const value = Number(inline ?? argv[++i]);
    if (!name) usage(`unknown option ${flag}`);
    const least = name === 'seed' ? 0 : 1;
    if (!Number.isInteger(value) || value < least) usage(`${flag} takes a whole number ≥ ${least}`);
    args[name] = value;
  }
  if (args.paths.length === 0) args.paths.push(join(ROOT, 'fixtures'));
  return args;
}

function usage(message) {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

/** Every `*.fixture.yaml` under `path`, sorted, node_modules and dot folders skipped. */
function discover(path) {
  if (path.endsWith('.fixture.yaml')) return [path];
  const found = [];
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const child = join(path, entry.name);
    if (entry.isDirectory()) found.push(...discover(child));
    else if (entry.name.endsWith('.fixture.yaml')) found.push(child);
  }
  return found.sort();
}

/** One `thresher test` run: its JSON document, or why there is none. */
function runOnce(file, kills, seed, timeoutMs) {
  const argv = [CLI, 'test', file, '--kill', `random:${kills}`, '--seed', String(seed), '--json'];
  return new Promise((resolve) => {
    // Its own process group, so a run that hangs is killed with the fixture children it started.
    const child = spawn(process.execPath, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) return resolve({ problem: `no end within ${timeoutMs / 60_000} min` });
      try {
        return resolve({ code, document: JSON.parse(stdout) });
      } catch {
        return resolve({ problem: `exit ${signal ?? code} without a report: ${lastLines(stderr || stdout)}` });
      }
    });
  });
}

const lastLines = (text) => text.trim().split('\n').slice(-3).join(' | ') || '(no output)';

/** The first thing a failed report names: a kill round's difference, an expectation, or why it could not run. */
function firstProblem(fixtureReport) {
  const [failure] = fixtureReport.failures ?? [];
  if (failure) {
    const where = failure.killAt === 0 ? 'uninterrupted child' : `round ${failure.killAt}`;
    return `${where}: ${failure.message ?? `${failure.field} — expected ${JSON.stringify(failure.expected)}, got ${JSON.stringify(failure.actual)}`}`;
  }
  const [expectation] = fixtureReport.expectationFailures ?? [];
  if (expectation) return `uninterrupted in-process run: ${expectation}`;
  return fixtureReport.error ?? 'failed, no reason given';
}

const args = parseArgs(process.argv.slice(2));
const files = args.paths.flatMap((path) => discover(resolve(path)));
if (files.length === 0) usage(`no *.fixture.yaml under ${args.paths.join(', ')}`);

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)}s`;
console.log(
  `soak: ${files.length} fixtures × ${args.runs} runs, --kill random:${args.kills}, seeds ${args.seed}…${args.seed + args.runs - 1}, ${args.jobs} at once`,
);

// Run-major order: an interrupted soak has covered every fixture about equally.
const queue = [];
for (let run = 0; run < args.runs; run++) for (const file of files) queue.push({ run, file, seed: args.seed + run });
const failures = [];
const doneByRun = new Map();

async function worker() {
  for (let task = queue.shift(); task; task = queue.shift()) {
    const where = relative(ROOT, task.file);
    const outcome = await runOnce(task.file, args.kills, task.seed, args.timeoutMin * 60_000);
    const report = outcome.document?.fixtures?.[0];
    if (!report?.ok) {
      const problem = outcome.problem ?? firstProblem(report ?? {});
      failures.push({ ...task, where, problem });
      console.log(`FAIL ${where} seed ${task.seed}: ${problem}`);
      console.log(
        `     replay: node packages/cli/dist/main.js test ${where} --kill random:${args.kills} --seed ${task.seed}`,
      );
    }
    const done = (doneByRun.get(task.run) ?? 0) + 1;
    doneByRun.set(task.run, done);
    if (done === files.length) {
      console.log(
        `[${elapsed()}] run ${task.run + 1}/${args.runs} done (seed ${task.seed}), ${failures.length} failures so far`,
      );
    }
  }
}

await Promise.all(Array.from({ length: args.jobs }, worker));

if (failures.length > 0) {
  console.log('\nfailures by fixture:');
  const seeds = new Map();
  for (const { where, seed } of failures) seeds.set(where, [...(seeds.get(where) ?? []), seed]);
  for (const [where, list] of seeds) console.log(`  ${where}: ${list.length} (seeds ${list.join(', ')})`);
}
console.log(
  `${args.runs} runs of ${files.length} fixtures × ${args.kills} kills: ${failures.length} failures (${elapsed()})`,
);
process.exitCode = failures.length > 0 ? 1 : 0;
