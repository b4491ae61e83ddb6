import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromCanonicalBytes } from '@thresher/checkpoint';
import {
  countCalls,
  countRepeats,
  type DriverState,
  type ExpectationFailure,
  type Fixture,
  type FixtureEnd,
  type FixtureReport,
  firstDifference,
  killFailureOf,
  startReport,
} from '@thresher/testing';

/** What a fixture child keeps between its deaths, written atomically after every change. */
export interface ChildState {
  driver: DriverState;
  clock: number;
  generation: number;
  /** Writes of this file so far, by every child of the folder. */
  saves: number;
}

/** The files of a fixture child's folder. */
export const CHILD_FILES = {
  store: 'store.db',
  state: 'state.json',
  calls: 'calls.log',
  end: 'end.json',
  error: 'error.json',
  /** `instance|element|event id` of every element entry the children's engines published. */
  entries: 'entries.log',
  /** The expectations a child found broken, one JSON `ExpectationFailure` a line. */
  expectations: 'expectations.log',
} as const;

// From the sources (under vitest) the child still runs built: Node 20 cannot run TypeScript.
const CHILD = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? '../dist/fixture-child.js' : './fixture-child.js', import.meta.url),
);

/** A seeded PRNG (mulberry32): the same seed gives the same kill instants. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface ChildExit {
  code: number | null;
  killed: boolean;
  ms: number;
}

/** How a child dies: `killAfterMs` after it says it is ready, or by its own hand after its n-th save. */
interface ChildDeath {
  killAfterMs?: number | null;
  dieAfterSave?: number;
}

/**
 * Run one child; `killAfterMs` counts from when it says it is ready (its engine built, before it recovers
 * or drives anything), so the kills land in the engine's work rather than in Node's start-up.
 */
function runChild(fixture: Fixture, dir: string, death: ChildDeath = {}): Promise<ChildExit> {
  const { killAfterMs = null, dieAfterSave } = death;
  const args = [
    CHILD,
    fixture.file,
    dir,
    ...(dieAfterSave === undefined ? [] : ['--die-after-save', `${dieAfterSave}`]),
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let ready: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  child.stdout!.on('data', () => {
    if (ready !== undefined) return;
    ready = performance.now();
    if (killAfterMs !== null) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  });
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, killed: signal === 'SIGKILL', ms: ready === undefined ? 0 : performance.now() - ready });
    }),
  );
}

/** Handler runs by task type from a child folder's call log, each (invocation, attempt) once. */
export function runsFromLog(dir: string): { runs: Record<string, number>; repeats: Map<string, number> } {
  const log = join(dir, CHILD_FILES.calls);
  const counts = new Map<string, number>();
  if (existsSync(log)) {
    for (const line of readFileSync(log, 'utf8').split('\n')) {
      if (!line) continue;
      const [type, identity, attempt] = line.split('|');
      const key = `${type}|${identity}|${attempt}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  const runs: Record<string, number> = {};
  for (const key of counts.keys()) {
    const type = key.slice(0, key.indexOf('|'));
    runs[type] = (runs[type] ?? 0) + 1;
  }
  return { runs, repeats: counts };
}

/** A round's handler calls: each (task type, invocation, attempt), `type|identity|attempt`, its element and how often. */
export type RoundCalls = ReadonlyMap<string, { element: string; count: number }>;

/** The handler calls of a child folder's call log. */
function callsFromLog(dir: string): RoundCalls {
  const log = join(dir, CHILD_FILES.calls);
  const calls = new Map<string, { element: string; count: number }>();
  if (existsSync(log)) {
    for (const line of readFileSync(log, 'utf8').split('\n')) {
      const [type, identity, attempt, , element] = line.split('|');
      if (!type || !element) continue;
      const key = `${type}|${identity}|${attempt}`;
      const entry = calls.get(key) ?? { element, count: 0 };
      entry.count++;
      calls.set(key, entry);
    }
  }
  return calls;
}

/** The expectations the children of a folder found broken, at `expect` moves and at the end. */
function brokenExpectations(dir: string): ExpectationFailure[] {
  const log = join(dir, CHILD_FILES.expectations);
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => fromCanonicalBytes(Buffer.from(line, 'utf8')) as ExpectationFailure);
}

function childEnd(dir: string): FixtureEnd {
  const error = join(dir, CHILD_FILES.error);
  if (existsSync(error)) throw new Error((JSON.parse(readFileSync(error, 'utf8')) as { message: string }).message);
  const end = fromCanonicalBytes(readFileSync(join(dir, CHILD_FILES.end))) as FixtureEnd;
  return { ...end, handlerRuns: runsFromLog(dir).runs };
}

/**
 * `kill: { random: N }`: the fixture runs in child processes on a real SQLite file, SIGKILLed N times at
 * instants drawn from `seed` (within one uninterrupted child run's duration), each death followed by a new
 * process that recovers and drives on. Rounds repeat on fresh files until N kills have landed; each round's
 * end must equal the in-process uninterrupted run's.
 */
export async function runSigkillFixture(
  fixture: Fixture,
  kills: number,
  seed: number,
  onProgress?: (progress: { killAt: number; of: number; ok: boolean }) => void,
): Promise<FixtureReport> {
  const { baseline, report } = await startReport(fixture, seed);
  const random = seededRandom(seed);
  const scratch = mkdtempSync(join(tmpdir(), 'thresher-sigkill-'));
  try {
    // One uninterrupted child: how long a run takes out here, and proof the child alone ends right.
    const reference = join(scratch, 'reference');
    const uninterrupted = await runChild(fixture, mkdir(reference));
    compare(report, 0, baseline.end, reference);
    const span = Math.max(1, uninterrupted.ms);
    let landed = 0;
    for (let round = 1; landed < kills && round <= kills * 4; round++) {
      const dir = mkdir(join(scratch, `round-${round}`));
      let killsThisRound = 0;
      for (;;) {
        const delay = landed < kills ? Math.floor(random() * span) : null;
        const exit = await runChild(fixture, dir, { killAfterMs: delay });
        if (exit.killed) {
          landed++;
          killsThisRound++;
          report.tried.push(delay!);
          onProgress?.({ killAt: landed, of: kills, ok: true });
          continue;
        }
        break;
      }
      compare(report, round, baseline.end, dir, killsThisRound);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return finish(report);
}

/**
 * How many kills a chain may take per save of an uninterrupted child before it is declared endless. A
 * resumed child may record again the move it found under way; far more kills than that means moves that
 * are applied again and again (the clock pushed on forever, say) and the run would never end.
 */
const KILLS_PER_SAVE = 4;

/**
 * `--kill saves`: the fixture runs in child processes on a real SQLite file, one folder, each child
 * SIGKILLing itself right after a write of the outside world's state (state.json) — the first child after
 * its first save, each next one after its first save that moves the fixture's moves past where its
 * predecessor left them (one that did not goes a save further next time) — until a child runs to the end. So the run dies once after every bookkeeping write in turn (a death
 * between a move's effect and its record included), and its end must equal the in-process uninterrupted
 * run's. `tried` lists the deaths as the count of saves, over the whole run, each one followed.
 */
export async function runSaveKillFixture(fixture: Fixture, onKill?: (kills: number) => void): Promise<FixtureReport> {
  const { baseline, report } = await startReport(fixture, null);
  const scratch = mkdtempSync(join(tmpdir(), 'thresher-saves-'));
  try {
    const reference = join(scratch, 'reference');
    await runChild(fixture, mkdir(reference));
    compare(report, 0, baseline.end, reference);
    const limit = KILLS_PER_SAVE * Math.max(1, childState(reference)?.saves ?? 0);
    const dir = mkdir(join(scratch, 'chained'));
    let dieAfterSave = 1;
    for (;;) {
      const before = childState(dir)?.driver;
      const exit = await runChild(fixture, dir, { dieAfterSave });
      if (!exit.killed) break;
      const after = childState(dir)!;
      report.tried.push(after.saves);
      onKill?.(report.tried.length);
      if (report.tried.length >= limit) {
        report.failures.push({
          killAt: after.saves,
          field: 'run',
          expected: `an end within ${limit} kills (${limit / KILLS_PER_SAVE} saves uninterrupted)`,
          actual: `still running after ${after.saves} saves, at ${outsideWorld(after)}`,
        });
        return finish(report);
      }
      // A child that did not move the driver on — it wrote again what it found (a move under way, recorded again
      // before it is re-applied), or only pushed the clock (a handler call the kill cut short, run again and
      // waited for again) — must let the next child go one save further, or the chain would never end.
      dieAfterSave = sameDriver(after.driver, before) ? dieAfterSave + 1 : 1;
    }
    compare(report, report.tried.at(-1) ?? 0, baseline.end, dir, report.tried.length);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return finish(report);
}

export function finish(report: FixtureReport): FixtureReport {
  report.ok = report.failures.length === 0 && report.expectationFailures.length === 0;
  return report;
}

function childState(dir: string): ChildState | undefined {
  const path = join(dir, CHILD_FILES.state);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as ChildState) : undefined;
}

/** Whether two saves record the driver at the same place (the clock may differ). */
function sameDriver(a: ChildState['driver'] | undefined, b: ChildState['driver'] | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The outside world a child's state records (its moves and virtual time), without who recorded it. */
function outsideWorld(state: ChildState | undefined): string {
  return state ? JSON.stringify({ driver: state.driver, clock: state.clock }) : '';
}

export function mkdir(path: string): string {
  mkdirSync(path, { recursive: true });
  return path;
}

function compare(report: FixtureReport, round: number, expected: FixtureEnd, dir: string, kills = 0): void {
  let end: FixtureEnd;
  try {
    end = childEnd(dir);
  } catch (error) {
    report.failures.push({ killAt: round, field: 'run', expected: 'an end', actual: String(error) });
    return;
  }
  judgeRound(report, round, expected, { end, broken: brokenExpectations(dir)[0], calls: callsFromLog(dir), kills });
}

/**
 * Judge a round's end, however it was run: equal to the uninterrupted run's, its expectations kept (`broken`: the
 * first one it did not), and no handler call made more often than once plus once per kill.
 */
export function judgeRound(
  report: FixtureReport,
  round: number,
  expected: FixtureEnd,
  seen: { end: FixtureEnd; broken: ExpectationFailure | undefined; calls: RoundCalls; kills: number },
): void {
  const { end, broken, calls, kills } = seen;
  if (kills > 0) countRepeats(report, countCalls(calls.values()));
  const difference = firstDifference(expected, end);
  if (difference) return void report.failures.push({ killAt: round, ...difference });
  if (broken) return void report.failures.push(killFailureOf(round, broken));
  for (const [key, { count }] of calls) {
    if (count > 1 + kills) {
      report.failures.push({
        killAt: round,
        field: 'at-least-once',
        expected: `at most ${1 + kills} calls`,
        actual: `${key} ran ${count} times`,
      });
      return;
    }
  }
}
