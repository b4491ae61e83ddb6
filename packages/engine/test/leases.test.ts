import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryRepository, LeaseLostError, type Repository } from '@thresher/checkpoint';
import { createSqliteRepository } from '@thresher/store-sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Handlers, Job } from '../src/api-types.js';
import { InstanceHeldError } from '../src/common/errors.js';
import { Engine } from '../src/engine.js';
import { simulateCrash } from '../src/testing/crash.js';
import { VirtualClock } from '../src/testing/virtual-clock.js';
import { bpmn, chain, ext } from './fixtures/bpmn/xml.js';

/** start → work (service task) → ship (service task) → end. */
const workThenShip = bpmn(`<bpmn:startEvent id="start" />
  <bpmn:serviceTask id="work">${ext('<zeebe:taskDefinition type="work" />')}</bpmn:serviceTask>
  <bpmn:serviceTask id="ship">${ext('<zeebe:taskDefinition type="ship" />')}</bpmn:serviceTask>
  <bpmn:endEvent id="end" />
  ${chain('start', 'work', 'ship', 'end')}`);

/** Handlers that record which engine ran which element; `work` waits for `open()` when gated. */
function recorded(engine: string, log: string[], gate?: Promise<void>): Handlers {
  return {
    work: async (job: Job) => {
      log.push(`${engine}:${job.elementId}`);
      if (gate) await gate;
      return { workedBy: engine };
    },
    ship: (job: Job) => {
      log.push(`${engine}:${job.elementId}`);
      return { shippedBy: engine };
    },
  };
}

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

let directory: string;
const opened: Array<{ close(): Promise<void> }> = [];

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'thresher-leases-'));
});

afterEach(async () => {
  for (const closable of opened.splice(0).reverse()) await closable.close();
  rmSync(directory, { recursive: true, force: true });
});

function sqlite(): Repository {
  const repository = createSqliteRepository({ path: join(directory, 'store.db') });
  opened.push(repository);
  return repository;
}

function engine(options: ConstructorParameters<typeof Engine>[0]): Engine {
  const created = new Engine({ backoff: () => 0, ...options });
  opened.push(created);
  return created;
}

/** An instance whose `work` job is in flight in its document, its engine closed (leases released). */
async function inFlight(repository: Repository): Promise<string> {
  const first = new Engine({ repository, handlers: { work: () => new Promise(() => {}) } });
  await first.deploy(workThenShip);
  const id = await first.start('p');
  await first.close();
  return id;
}

describe('two engines on one store', () => {
  it('should let one of two engines recovering at once run the instance, each step once', async () => {
    // given an instance with a job in flight on a SQLite file, and two engines with their own connections
    const id = await inFlight(sqlite());
    const log: string[] = [];
    const a = engine({ repository: sqlite(), handlers: recorded('a', log) });
    const b = engine({ repository: sqlite(), handlers: recorded('b', log) });

    // when both recover it at once
    const [ra, rb] = await Promise.all([a.recover(), b.recover()]);

    // then one restored it and the other was refused naming the holder
    const reports = [ra, rb];
    const winner = ra.restored.includes(id) ? a : b;
    const loser = winner === a ? b : a;
    expect(reports.flatMap((report) => report.restored)).toEqual([id]);
    const refusals = reports.flatMap((report) => report.failed);
    expect(refusals.map((refusal) => refusal.instanceId)).toEqual([id]);
    expect(refusals[0]!.error).toBeInstanceOf(InstanceHeldError);
    expect((refusals[0]!.error as InstanceHeldError).owner).toBe(winner.owner);

    // and every step ran once, by the winner, whichever engine is asked afterwards
    expect((await winner.settled(id)).status).toBe('completed');
    expect((await loser.settled(id)).status).toBe('completed');
    const name = winner === a ? 'a' : 'b';
    expect(log).toEqual([`${name}:work`, `${name}:ship`]);
  });

  it('should refuse to advance an instance another engine is running, naming the owner and until when', async () => {
    // given engine a running an instance whose work handler has not answered
    const repository = sqlite();
    const log: string[] = [];
    const held = gate();
    const clock = new VirtualClock();
    const a = engine({ repository, handlers: recorded('a', log, held.promise), clock: clock.view() });
    await a.deploy(workThenShip);
    const id = await a.start('p');

    // when engine b is asked about it, or to recover it
    const b = engine({ repository: sqlite(), handlers: recorded('b', log), clock: clock.view() });
    const refused = await b.settled(id).catch((error: unknown) => error);
    const report = await b.recover({ instanceIds: [id] });

    // then b refuses, naming a and the lease's end, and runs nothing
    expect(refused).toBeInstanceOf(InstanceHeldError);
    expect(refused).toMatchObject({ code: 'THRESHER_INSTANCE_HELD', owner: a.owner, expiresAt: clock.now() + 30_000 });
    expect((refused as Error).message).toContain(a.owner);
    expect(report.failed.map((failure) => failure.error)).toEqual([refused]);

    // and once a has finished it, b reads the end a wrote
    held.open();
    expect((await a.settled(id)).status).toBe('completed');
    expect(await b.settled(id)).toMatchObject({ status: 'completed' });
    expect(log).toEqual(['a:work', 'a:ship']);
  });

  it('should drop an instance taken over after its lease lapsed, applying nothing it finishes later', async () => {
    // given engine a whose work handler is still running when its lease lapses (a paused process)
    const repository = createMemoryRepository();
    const log: string[] = [];
    const held = gate();
    const clock = new VirtualClock();
    const a = engine({ repository, handlers: recorded('a', log, held.promise), clock: clock.view() });
    const faults: Error[] = [];
    a.onFault(({ error }) => faults.push(error));
    await a.deploy(workThenShip);
    const id = await a.start('p');
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(30_001);

    // when engine b recovers it and runs it to its end
    const b = engine({ repository, handlers: recorded('b', log), clock: clock.view() });
    expect(await b.recover()).toEqual({ restored: [id], failed: [] });
    expect((await b.settled(id)).status).toBe('completed');

    // and a's handler answers only then
    held.open();
    await expect.poll(() => faults.length).toBe(1);

    // then a's late result was refused and a ran nothing after it: the work step ran again only because
    // it was in flight when a lost the instance
    expect(faults[0]).toBeInstanceOf(LeaseLostError);
    expect(log).toEqual(['a:work', 'b:work', 'b:ship']);
    expect((await b.instance(id))?.variables).toEqual({ workedBy: 'b', shippedBy: 'b' });
    expect((await a.settled(id)).status).toBe('completed');
  });

  it('should report a lease lost once, though both its renewal and the late write it guarded were refused', async () => {
    // given engine a whose work handler is running when its lease lapses and b takes the instance over,
    // a's renewals held up on their way to the store
    const repository = createMemoryRepository();
    const renewals = gate();
    let renewing = 0;
    const slowRenewals: Repository = new Proxy(repository, {
      get(target, property, receiver) {
        if (property !== 'renew') return Reflect.get(target, property, receiver);
        return async (...args: Parameters<Repository['renew']>) => {
          renewing++;
          await renewals.promise;
          return target.renew(...args);
        };
      },
    });
    const held = gate();
    const clock = new VirtualClock();
    const a = engine({
      repository: slowRenewals,
      handlers: recorded('a', [], held.promise),
      clock: clock.view(),
      leaseTtlMs: 300,
    });
    const faults: Error[] = [];
    a.onFault(({ error }) => faults.push(error));
    await a.deploy(workThenShip);
    const id = await a.start('p');
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(301);
    const b = engine({ repository, handlers: recorded('b', []), clock: clock.view() });
    expect(await b.recover()).toEqual({ restored: [id], failed: [] });
    expect((await b.settled(id)).status).toBe('completed');

    // when a's handler answers, its write renewing the lease first as the interval's renewal does, and both
    // renewals reach the store together
    await expect.poll(() => renewing).toBeGreaterThan(0);
    held.open();
    await expect.poll(() => renewing).toBeGreaterThan(1);
    renewals.open();
    await expect.poll(() => faults.length).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 250));

    // then the loss was reported once
    expect(faults).toEqual([expect.any(LeaseLostError)]);
  });

  it('should take over at once, not after the lease, the instances of an engine of this process that is gone', async () => {
    // given an engine holding an instance with a job in flight
    const repository = sqlite();
    const clock = new VirtualClock();
    const log: string[] = [];
    const first = new Engine({ repository, handlers: { work: () => new Promise(() => {}) }, clock: clock.view() });
    await first.deploy(workThenShip);
    const id = await first.start('p');
    const second = engine({ repository, handlers: recorded('second', log), clock: clock.view() });
    expect((await second.recover()).failed.map((failure) => failure.error)).toEqual([expect.any(InstanceHeldError)]);

    // when it is gone as a killed process is, and the other engine recovers, no time having passed
    simulateCrash(first);

    // then the other runs the instance at once
    expect(await second.recover()).toEqual({ restored: [id], failed: [] });
    expect((await second.settled(id)).status).toBe('completed');
    expect(log).toEqual(['second:work', 'second:ship']);
  });

  it('should release the lease of an instance that ended, so that its end is all another engine reads', async () => {
    // given an instance run to its end by one engine that stays open
    const repository = sqlite();
    const a = engine({ repository, handlers: recorded('a', []) });
    await a.deploy(workThenShip);
    const id = await a.start('p');
    expect((await a.settled(id)).status).toBe('completed');

    // then the store holds no lease on it
    await expect.poll(() => repository.lease(id)).toBeUndefined();
  });

  it('should refuse to roll back an instance another engine is running', async () => {
    // given engine a running an instance whose work handler has not answered
    const repository = sqlite();
    const held = gate();
    const a = engine({ repository, handlers: recorded('a', [], held.promise) });
    await a.deploy(workThenShip);
    const id = await a.start('p');

    // when engine b is asked to roll it back, then
    const b = engine({ repository: sqlite(), handlers: recorded('b', []) });
    await expect(b.rollback(id, { to: 0 })).rejects.toBeInstanceOf(InstanceHeldError);
    held.open();
    expect((await a.settled(id)).status).toBe('completed');
  });

  it('should refuse a lease time to live that is not a positive integer of milliseconds', () => {
    expect(() => new Engine({ repository: createMemoryRepository(), leaseTtlMs: 0 })).toThrow(RangeError);
    expect(() => new Engine({ repository: createMemoryRepository(), leaseTtlMs: 1.5 })).toThrow(/leaseTtlMs/);
  });
});
