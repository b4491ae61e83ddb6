/**
 * `thresher test --kill random:N` of a `via: api` fixture: the fixture run through Camunda's REST API on a real
 * `thresher serve` over a SQLite file — its models deployed, its instance created, its handlers job workers
 * long-polling, its moves a client's calls — while the server is SIGKILLed N times at instants drawn from `seed`
 * and a new one started on the same file each time. The workers and moves stay in this process and go on against
 * each new server. Kills land after the instance is created: Camunda's create takes no key a retry could repeat,
 * so a create a kill cut off cannot be told from one that never landed. Each round's end, read from the file once
 * its last server stopped, must equal the in-process uninterrupted run's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '@thresher/engine';
import { createSqliteRepository } from '@thresher/store-sqlite';
import {
  checkExpectations,
  type Fixture,
  type FixtureEnd,
  type FixtureReport,
  observe,
  startReport,
} from '@thresher/testing';
import { finish, judgeRound, mkdir, seededRandom } from '../fixture-sigkill.js';
import { ApiMoves } from './moves.js';
import { ApiClient, ServedStore } from './served.js';
import { JobWorkers } from './workers.js';

/** What one round through the API saw. */
interface ApiRound {
  end: FixtureEnd;
  workers: JobWorkers;
  /** From the instance's creation to its end, in ms. */
  ms: number;
  kills: number;
}

export async function runApiSigkillFixture(
  fixture: Fixture,
  kills: number,
  seed: number,
  onProgress?: (progress: { killAt: number; of: number; ok: boolean }) => void,
): Promise<FixtureReport> {
  const { baseline, report } = await startReport(fixture, seed);
  const random = seededRandom(seed);
  const scratch = mkdtempSync(join(tmpdir(), 'thresher-api-'));
  try {
    const reference = await attempt(report, 0, () => runRound(fixture, mkdir(join(scratch, 'reference')), () => null));
    if (reference !== undefined) compare(report, 0, fixture, baseline.end, reference);
    const span = Math.max(1, reference?.ms ?? 1000);
    let landed = 0;
    for (let round = 1; reference !== undefined && landed < kills && round <= kills * 4; round++) {
      const dir = mkdir(join(scratch, `round-${round}`));
      const next = () => {
        if (landed >= kills) return null;
        return Math.floor(random() * span);
      };
      const onKill = (delay: number) => {
        landed++;
        report.tried.push(delay);
        onProgress?.({ killAt: landed, of: kills, ok: true });
      };
      const seen = await attempt(report, round, () => runRound(fixture, dir, next, onKill));
      if (seen !== undefined) compare(report, round, fixture, baseline.end, seen);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return finish(report);
}

/**
 * One round on a fresh file: a server, the workers and moves against it, and after the instance's creation a kill
 * `next()` ms after each server came up, until `next` says none; then the end as the file holds it.
 */
async function runRound(
  fixture: Fixture,
  dir: string,
  next: () => number | null,
  onKill: (delay: number) => void = () => {},
): Promise<ApiRound> {
  const storePath = join(dir, 'store.db');
  const served = new ServedStore(storePath);
  const client = new ApiClient(served);
  let workers: JobWorkers | undefined;
  let killer: NodeJS.Timeout | undefined;
  let kills = 0;
  let ended = false;
  let restartFailure: Error | undefined;
  const arm = () => {
    const delay = ended ? null : next();
    if (delay === null) return;
    killer = setTimeout(() => {
      if (ended) return;
      kills++;
      onKill(delay);
      void served.kill().then(() => {
        // The run may have ended while this server died: no server outlives the round.
        if (ended) return;
        return served.start().then(arm, (error: Error) => {
          restartFailure = error;
        });
      });
    }, delay);
  };
  try {
    await served.start();
    workers = new JobWorkers(fixture, client);
    const running = workers;
    const moves = new ApiMoves(fixture, client, () => restartFailure ?? running.failure);
    await moves.deploy();
    const instanceKey = await moves.create();
    const started = performance.now();
    arm();
    for (const move of fixture.moves) await moves.make(move, instanceKey);
    await moves.ended(instanceKey);
    ended = true;
    const ms = performance.now() - started;
    await workers.stop();
    if (workers.failure !== undefined) throw workers.failure;
    await served.stop();
    return { end: await endOf(storePath, workers), workers, ms, kills };
  } finally {
    ended = true;
    clearTimeout(killer);
    await workers?.stop();
    await served.stop();
  }
}

/** The round's end, read from its file by an engine that runs nothing. */
async function endOf(storePath: string, workers: JobWorkers): Promise<FixtureEnd> {
  const repository = createSqliteRepository({ path: storePath });
  const engine = new Engine({ repository });
  try {
    const roots = await engine.instances({ roots: true });
    if (roots.length !== 1) throw new Error(`the store holds ${roots.length} root instances, not the run's one`);
    return await observe(engine, repository, roots[0]!.instanceId, { handlerRuns: workers.runs(), entered: {} });
  } finally {
    await engine.close();
    await repository.close();
  }
}

async function attempt(
  report: FixtureReport,
  round: number,
  run: () => Promise<ApiRound>,
): Promise<ApiRound | undefined> {
  try {
    return await run();
  } catch (error) {
    report.failures.push({ killAt: round, field: 'run', expected: 'an end', actual: String(error) });
    return undefined;
  }
}

function compare(report: FixtureReport, round: number, fixture: Fixture, expected: FixtureEnd, seen: ApiRound): void {
  const [broken] = checkExpectations(fixture, fixture.expect, seen.end, Date.now(), seen.kills > 0);
  judgeRound(report, round, expected, { end: seen.end, broken, calls: seen.workers.calls, kills: seen.kills });
}
