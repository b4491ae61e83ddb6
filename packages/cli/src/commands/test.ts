import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Fixture, FixtureReport, KillPlan } from '@thresher/testing';
import { commandSpec, flag, type Parsed, parseWith, text } from '../args.js';
import { defineCommand } from '../command.js';
import { jsonOption } from '../drive-options.js';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { type Output, toJson } from '../output.js';
import { ProgressLine } from '../progress-line.js';

export const testSpec = commandSpec({
  name: 'test',
  usage: 'thresher test [PATH...] [--kill every|none|N,M|random:N|saves] [--seed S] [--json]',
  summary: 'run kill-and-resume fixtures: uninterrupted, then killed at every persist point, and compare the ends',
  positionals: [
    {
      name: 'PATH...',
      required: false,
      variadic: true,
      description: 'fixture files or folders holding *.fixture.yaml (default ./fixtures)',
    },
  ],
  options: {
    kill: {
      type: 'string',
      placeholder: 'PLAN',
      description:
        "every persist point (default: what each fixture says), none, given points (3,7), random:N SIGKILLs of a child process on SQLite, or saves: the child SIGKILLed right after each write of the outside world's state",
    },
    seed: {
      type: 'string',
      placeholder: 'S',
      description: 'the seed of random:N kill instants (printed when omitted)',
    },
    json: jsonOption,
  },
  examples: [
    'thresher test',
    'thresher test fixtures/order --kill 1,2,3',
    'thresher test --kill random:5 --seed 42',
    'thresher test --kill saves',
  ],
});

/** A `--kill` plan. */
export type KillOption =
  | { kind: 'none' }
  | { kind: 'every' }
  | { kind: 'points'; points: number[] }
  | { kind: 'random'; count: number }
  | { kind: 'saves' };

/** `thresher test`, parsed; `kill` undefined keeps each fixture's own plan. */
export interface TestArgs {
  paths: string[];
  kill: KillOption | undefined;
  seed: number | undefined;
  json: boolean;
}

/** Parses a `--kill` value: `every`, `none`, `3,7`, `random:5` or `saves`. */
export function parseKill(value: string, usage: string): KillOption {
  if (value === 'every' || value === 'none' || value === 'saves') return { kind: value };
  const random = /^random:(\d+)$/.exec(value);
  if (random) {
    const count = Number(random[1]);
    if (count < 1) throw new UsageError('option --kill random:N needs N of at least 1', usage);
    return { kind: 'random', count };
  }
  if (/^\d+(,\d+)*$/.test(value)) {
    const points = value.split(',').map(Number);
    if (points.some((point) => point < 1)) throw new UsageError('option --kill: persist points start at 1', usage);
    return { kind: 'points', points: [...new Set(points)].sort((a, b) => a - b) };
  }
  throw new UsageError(`option --kill ${JSON.stringify(value)}: expected every, none, N,M, random:N or saves`, usage);
}

/** Parses `thresher test` arguments. */
export function parseTestArgs(argv: readonly string[]): Parsed<TestArgs> {
  const usage = testSpec.usage;
  return parseWith(testSpec, argv, ({ values, positionals }) => {
    const kill = text(values, 'kill');
    const seed = text(values, 'seed');
    if (seed !== undefined && !/^\d+$/.test(seed)) {
      throw new UsageError(`option --seed ${JSON.stringify(seed)}: expected a whole number`, usage);
    }
    return {
      paths: positionals,
      kill: kill === undefined ? undefined : parseKill(kill, usage),
      seed: seed === undefined ? undefined : Number(seed),
      json: flag(values, 'json'),
    };
  });
}

const SUFFIX = '.fixture.yaml';

/** Every `*.fixture.yaml` under `path` (or `path` itself), sorted, node_modules skipped. */
function discover(path: string): string[] {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch {
    throw new UsageError(`no such fixture or folder: ${path}`, 'thresher test [PATH...]');
  }
  if (!stat.isDirectory()) return [path];
  const found: string[] = [];
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const child = join(path, entry.name);
    if (entry.isDirectory()) found.push(...discover(child));
    else if (entry.name.endsWith(SUFFIX)) found.push(child);
  }
  return found.sort();
}

interface Failed {
  file: string;
  name: string;
  ok: false;
  error: string;
}

function describePlan(plan: KillOption | KillPlan, report: FixtureReport): string {
  if (plan.kind === 'random') return `${report.tried.length} SIGKILLs (seed ${report.seed})`;
  if (plan.kind === 'saves') return `${report.tried.length} SIGKILLs, one after each save of the outside world's state`;
  if (plan.kind === 'none') return 'no kills';
  return `${report.tried.length} of ${report.persistPoints} persist points killed`;
}

/** Where a failure struck, in the words of its plan; 0 is the uninterrupted child of the SIGKILL plans. */
function failureSite(plan: KillOption | KillPlan, killAt: number): string {
  if (plan.kind === 'random') return `round ${killAt}`;
  if (plan.kind === 'saves') return killAt === 0 ? 'uninterrupted child' : `killed after save ${killAt}`;
  return `kill at persist point ${killAt}`;
}

function printReport(out: Output, cwd: string, report: FixtureReport, plan: KillOption | KillPlan): void {
  const where = relative(cwd, report.file);
  out.print(`${report.ok ? 'ok  ' : 'FAIL'} ${report.name} (${where}) — ${describePlan(plan, report)}`);
  for (const failure of report.expectationFailures) out.print(`     expectation: ${failure}`);
  for (const failure of report.failures.slice(0, 5)) {
    const at = failureSite(plan, failure.killAt);
    const what =
      failure.message ?? `${failure.field} — expected ${toJson(failure.expected)}, observed ${toJson(failure.actual)}`;
    out.print(`     ${at}: ${what}`);
  }
  if (report.failures.length > 5) out.print(`     … and ${report.failures.length - 5} more kill points failed`);
  // Kills may repeat a call in flight: say how often, so handlerRuns (distinct attempts) keeps its meaning.
  for (const [element, runs] of Object.entries(report.handlerRuns ?? {})) {
    if (runs.extraByKills === 0) continue;
    out.print(
      `     handler at ${element}: ${runs.uninterrupted} run(s) uninterrupted; kills repeated a call in flight ${runs.extraByKills} time(s), in ${runs.killsThatRepeated} killed run(s)`,
    );
  }
}

/**
 * `thresher test`: run kill-and-resume fixtures. Exit 0 only when every fixture's uninterrupted run meets
 * its expectations and every killed run ends the same.
 */
export const testCommand = defineCommand(testSpec, parseTestArgs, async (args, { io, out }) => {
  const roots = args.paths.length > 0 ? args.paths.map((path) => resolve(io.cwd, path)) : [resolve(io.cwd, 'fixtures')];
  const files = roots.flatMap(discover);
  if (files.length === 0)
    throw new UsageError(`no ${SUFFIX} files under ${roots.join(', ')}`, 'thresher test [PATH...]');
  // Loaded on use, not when `thresher` starts: the fixture kit brings its YAML reader and schema validator.
  const { FixtureError, loadFixture, runFixture } = await import('@thresher/testing');
  const { runSaveKillFixture, runSigkillFixture, seededRandom } = await import('../fixture-sigkill.js');
  const seed = args.seed ?? Math.floor(seededRandom(io.clock.now())() * 2 ** 31);
  const results: (FixtureReport | Failed)[] = [];
  const line = new ProgressLine(io, out, 'fixtures');
  for (const file of files) {
    let fixture: Fixture;
    try {
      fixture = await loadFixture(file);
    } catch (error) {
      if (!(error instanceof FixtureError)) throw error;
      results.push({ file, name: relative(io.cwd, file), ok: false, error: error.message });
      out.print(`FAIL ${relative(io.cwd, file)} — ${error.message}`);
      continue;
    }
    const plan: KillOption | KillPlan = args.kill ?? fixture.kill;
    out.progress(`running ${fixture.name} …`, { fixture: fixture.name });
    // A chain of kills at saves does not know its length before it ends: no `of` then.
    const onProgress = ({ killAt, of }: { killAt: number; of?: number }) =>
      line.update(results.length, files.length, `${fixture.name}: kill ${killAt}${of ? `/${of}` : ''}`);
    try {
      const randomSeed = args.seed ?? fixture.seed ?? seed;
      const report =
        plan.kind === 'random'
          ? fixture.via === 'api'
            ? await (await import('../fixture-api/run.js')).runApiSigkillFixture(
                fixture,
                plan.count,
                randomSeed,
                onProgress,
              )
            : await runSigkillFixture(fixture, plan.count, randomSeed, onProgress)
          : plan.kind === 'saves'
            ? await runSaveKillFixture(fixture, (killAt) => onProgress({ killAt }))
            : await runFixture(fixture, { kill: plan, onProgress });
      line.end();
      results.push(report);
      printReport(out, io.cwd, report, plan);
    } catch (error) {
      line.end();
      const message = error instanceof Error ? error.message : String(error);
      results.push({ file, name: fixture.name, ok: false, error: message });
      out.print(`FAIL ${fixture.name} — ${message}`);
    }
  }
  const failed = results.filter((result) => !result.ok).length;
  out.document({ ok: failed === 0, seed, fixtures: results });
  out.print(`${results.length - failed} passed, ${failed} failed`);
  return failed === 0 ? ExitCode.Ok : ExitCode.Failed;
});
