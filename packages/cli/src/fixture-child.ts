/**
 * One process of a SIGKILL fixture run (`thresher test --kill random:N`): runs the fixture on a real
 * SQLite file until the parent kills it or the instance ends. Everything that must outlive the process
 * lives in its folder: the store, the outside world's state (moves, virtual time) and the handler-call log.
 *
 * Usage: node fixture-child.js FIXTURE.yaml DIR [--die-after-save N]
 *
 * `--die-after-save N` makes the child SIGKILL itself right after its N-th write of state.json, so a test
 * can kill it exactly between two of the outside world's bookkeeping writes rather than at a random instant.
 */
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson } from '@thresher/checkpoint';
import type { Handlers } from '@thresher/engine';
import { Engine } from '@thresher/engine';
import { createSqliteRepository } from '@thresher/store-sqlite';
import {
  checkExpectations,
  type DriverHost,
  type DriverState,
  ElementEntries,
  type ExpectationFailure,
  fileStoppedMessage,
  fixtureHandlers,
  handlerChanges,
  loadFixture,
  loadHandlersModule,
  MoveDriver,
  observe,
  simulateCrash,
  stoppedMessageId,
  VirtualClock,
} from '@thresher/testing';
import { CHILD_FILES, type ChildState, runsFromLog } from './fixture-sigkill.js';

/** `alive` false (its engine was restarted away): calls hang uncounted, as in a stopped engine. */
function logCalls(handlers: Handlers, log: string, generation: number, alive: () => boolean): Handlers {
  const out: Handlers = {};
  for (const [type, handler] of Object.entries(handlers)) {
    out[type] = (job) => {
      if (!alive()) return new Promise(() => {});
      // Written before the call: the outside world saw the attempt even if the process dies in it.
      appendFileSync(log, `${type}|${job.idempotencyKey}|${job.attempt}|${generation}|${job.elementId}\n`);
      return handler(job);
    };
  }
  return out;
}

/**
 * Element entries over every child of the folder, as one in-process run counts them over its engines: each
 * child appends the entries its engine publishes to a log and reads its predecessors' back.
 */
function loggedEntries(log: string): { entries: ElementEntries; watch(engine: Engine): void } {
  const entries = new ElementEntries();
  if (existsSync(log)) {
    for (const line of readFileSync(log, 'utf8').split('\n')) {
      const [instanceId, elementId, eventId] = line.split('|');
      if (instanceId && elementId && eventId) entries.add(instanceId, elementId, eventId);
    }
  }
  const watch = (engine: Engine): void => {
    engine.on('track.entered', (event) => {
      appendFileSync(log, `${event.instanceId}|${event.elementId}|${event.id}\n`);
      entries.add(event.instanceId, event.elementId, event.id);
    });
  };
  return { entries, watch };
}

async function main(fixtureFile: string, dir: string, dieAfterSave: number | null): Promise<void> {
  const statePath = join(dir, CHILD_FILES.state);
  const previous = existsSync(statePath) ? (JSON.parse(readFileSync(statePath, 'utf8')) as ChildState) : undefined;
  const generation = (previous?.generation ?? 0) + 1;
  const fixture = await loadFixture(fixtureFile);
  const clock = previous ? new VirtualClock(previous.clock) : new VirtualClock();
  let written = 0;
  const save = (driver: DriverState) => {
    written++;
    const state: ChildState = { driver, clock: clock.now(), generation, saves: (previous?.saves ?? 0) + written };
    writeFileSync(`${statePath}.tmp`, JSON.stringify(state));
    renameSync(`${statePath}.tmp`, statePath);
    // The save is durable and nothing after it ran: the death lands exactly between two bookkeeping writes.
    if (written === dieAfterSave) process.kill(process.pid, 'SIGKILL');
  };
  const repository = createSqliteRepository({ path: join(dir, CHILD_FILES.store) });
  const module = await loadHandlersModule(fixture);
  const { entries, watch } = loggedEntries(join(dir, CHILD_FILES.entries));
  // One engine per restart move passed; each sees the handlers of the restarts before where it starts.
  const incarnate = (next: number) => {
    const view = clock.view();
    let alive = true;
    const scripted = fixtureHandlers(fixture, module, view, handlerChanges(fixture, next));
    const handlers = logCalls(scripted, join(dir, CHILD_FILES.calls), generation, () => alive);
    const engine = new Engine({ repository, handlers, clock: view });
    watch(engine);
    const abandon = () => {
      alive = false;
      view.dispose();
      simulateCrash(engine); // a restart move: the next engine takes its instances over at once
    };
    return { engine, abandon };
  };
  const first = incarnate(previous ? (previous.driver.pending?.index ?? previous.driver.next) : 0);
  let current = first;
  const { engine } = first;
  // Broken expectations go to a log the parent reads: a child may die before it could report them otherwise.
  const broken = (failures: ExpectationFailure[]) => {
    for (const failure of failures) appendFileSync(join(dir, CHILD_FILES.expectations), `${canonicalJson(failure)}\n`);
  };
  try {
    await engine.deployTogether(fixture.models.map((model) => model.xml));
    process.stdout.write('ready\n');
    if (previous) {
      const report = await engine.recover();
      if (report.failed.length > 0) throw report.failed[0]!.error;
    }
    const driver = new MoveDriver(fixture, clock, save, previous?.driver);
    const seen = (on: Engine) =>
      observe(on, repository, driver.instanceId!, {
        handlerRuns: runsFromLog(dir).runs,
        entered: entries.counts(driver.instanceId!),
      });
    // A child after the first runs where a kill struck: element runs may read low, as in a killed in-process run.
    const killed = previous !== undefined;
    const host: DriverHost = {
      observe: seen,
      failed: broken,
      killed,
      restart: async (_engine, move) => {
        current.abandon();
        for (const [index, message] of move.whileStopped.entries()) {
          await fileStoppedMessage(repository, stoppedMessageId(fixture, move, index), message, clock.now());
        }
        current = incarnate(move.index + 1);
        const report = await current.engine.recover();
        if (report.failed.length > 0) throw report.failed[0]!.error;
        return current.engine;
      },
    };
    driver.attach(host);
    if (!previous) save({ instanceId: null, next: 0, starting: false, pending: null });
    const last = (await driver.run(engine, () => true)).engine;
    const end = await seen(last);
    broken(checkExpectations(fixture, fixture.expect, end, clock.now(), killed));
    // In the engine's codec, not JSON: an end holds what JSON cannot carry (a bigint variable past 2^53).
    writeFileSync(join(dir, CHILD_FILES.end), canonicalJson(end));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    writeFileSync(join(dir, CHILD_FILES.error), JSON.stringify({ message }));
    process.exitCode = 1;
  } finally {
    await current.engine.close();
    await repository.close();
  }
}

const USAGE = 'usage: fixture-child.js FIXTURE.yaml DIR [--die-after-save N]\n';
const [fixtureFile, dir, option, count] = process.argv.slice(2);
const dieAfterSave = option === '--die-after-save' && /^[1-9]\d*$/.test(count ?? '') ? Number(count) : null;
if (!fixtureFile || !dir || (option !== undefined && dieAfterSave === null)) {
  process.stderr.write(USAGE);
  process.exitCode = 2;
} else {
  await main(fixtureFile, dir, dieAfterSave);
}
