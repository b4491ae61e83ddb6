import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryRepository, LeaseLostError, type Repository } from '@thresher/checkpoint';
import { createSqliteRepository } from '@thresher/store-sqlite';
import { KillSwitch, simulateCrash, VirtualClock } from '@thresher/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InstanceHeldError } from '../src/common/errors.js';
import { Engine } from '../src/engine.js';
import type { Handlers, Job } from '../src/index.js';
import { Leases } from '../src/runtime/leases/leases.js';
import { bpmn, chain, ext } from './fixtures/bpmn/xml.js';

/** start → approve (user task) → end. */
const approval = bpmn(`<bpmn:startEvent id="start" />
  <bpmn:userTask id="approve" />
  <bpmn:endEvent id="end" />
  ${chain('start', 'approve', 'end')}`);

/** start → work (service task) → ship (service task) → end. */
const workThenShip = bpmn(`<bpmn:startEvent id="start" />
  <bpmn:serviceTask id="work">${ext('<zeebe:taskDefinition type="work" />')}</bpmn:serviceTask>
  <bpmn:serviceTask id="ship">${ext('<zeebe:taskDefinition type="ship" />')}</bpmn:serviceTask>
  <bpmn:endEvent id="end" />
  ${chain('start', 'work', 'ship', 'end')}`);

/** Handlers that record which engine ran which element; `work`, when gated, says it was reached and waits. */
function recorded(engine: string, log: string[], held?: Gate): Handlers {
  return {
    work: async (job: Job) => {
      log.push(`${engine}:${job.elementId}`);
      if (held) {
        held.arrive();
        await held.promise;
      }
      return { workedBy: engine };
    },
    ship: (job: Job) => {
      log.push(`${engine}:${job.elementId}`);
      return { shippedBy: engine };
    },
  };
}

/** Holds what awaits `promise` until `open()`; `reached` resolves once something arrived at it. */
interface Gate {
  promise: Promise<void>;
  open(): void;
  reached: Promise<void>;
  arrive(): void;
}

function gate(): Gate {
  let open!: () => void;
  let arrive!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  const reached = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  return { promise, open, reached, arrive };
}

/** Faults an engine reports, and a promise for the first one of each instance. */
function faultsOf(engine: Engine): {
  faults: Array<{ instanceId: string; error: Error }>;
  first(instanceId: string): Promise<Error>;
} {
  const faults: Array<{ instanceId: string; error: Error }> = [];
  const waiting = new Map<string, (error: Error) => void>();
  engine.onFault((fault) => {
    faults.push(fault);
    waiting.get(fault.instanceId)?.(fault.error);
  });
  return {
    faults,
    first: (instanceId) => {
      const seen = faults.find((fault) => fault.instanceId === instanceId);
      if (seen) return Promise.resolve(seen.error);
      return new Promise((resolve) => waiting.set(instanceId, resolve));
    },
  };
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
    const a = engine({ repository, handlers: recorded('a', log, held), clock: clock.view() });
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
    const a = engine({ repository, handlers: recorded('a', log, held), clock: clock.view() });
    const faults = faultsOf(a);
    await a.deploy(workThenShip);
    const id = await a.start('p');
    await held.reached;
    clock.advance(30_001);

    // when engine b recovers it and runs it to its end
    const b = engine({ repository, handlers: recorded('b', log), clock: clock.view() });
    expect(await b.recover()).toEqual({ restored: [id], failed: [] });
    expect((await b.settled(id)).status).toBe('completed');

    // and a's handler answers only then
    held.open();
    const lost = await faults.first(id);

    // then a's late result was refused and a ran nothing after it: the work step ran again only because
    // it was in flight when a lost the instance
    expect(lost).toBeInstanceOf(LeaseLostError);
    expect(log).toEqual(['a:work', 'b:work', 'b:ship']);
    expect((await b.instance(id))?.variables).toEqual({ workedBy: 'b', shippedBy: 'b' });
    expect((await a.settled(id)).status).toBe('completed');
  });

  it.each([
    ['reach the store together', [[0, 1, 2]]],
    ['are refused the write first', [[2], [0, 1]]],
    ['are refused the renewal round first', [[0, 1], [2]]],
  ])(
    'should report a lease lost once, though both its renewal and the late write it guarded were refused: they %s',
    async (_, waves) => {
      // given engine a holding two instances parked at a user task, its lease renewals held up on their way to
      // the store, and its interval renewal driven by hand (it runs on real time, not on the engine's clock)
      vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
      const renewals: Array<{ instanceId: string; held: Gate }> = [];
      try {
        const repository = createMemoryRepository();
        let onArrival = (): void => {};
        const slowRenewals: Repository = new Proxy(repository, {
          get(target, property, receiver) {
            if (property !== 'renew') return Reflect.get(target, property, receiver);
            return async (...args: Parameters<Repository['renew']>) => {
              const held = gate();
              renewals.push({ instanceId: args[0].instanceId, held });
              onArrival();
              await held.promise;
              return target.renew(...args);
            };
          },
        });
        /** Resolves once `count` renewals have reached the store's door. */
        const renewalsArrived = (count: number) =>
          new Promise<void>((resolve) => {
            onArrival = () => {
              if (renewals.length >= count) resolve();
            };
            onArrival();
          });
        const clock = new VirtualClock();
        const a = engine({ repository: slowRenewals, clock: clock.view() });
        const faults = faultsOf(a);
        await a.deploy(approval);
        const id = await a.start('p');
        const other = await a.start('p');
        const [task] = await a.userTasks({ instanceId: id });

        // and engine b has taken both over once a's leases lapsed
        clock.advance(30_001);
        const b = engine({ repository, clock: clock.view() });
        expect((await b.recover()).restored.sort()).toEqual([id, other].sort());

        // when a's interval renews its leases (renewals 0 and 1) and, while those are held, a completes the
        // task, its write renewing the lease first (renewal 2); then the store refuses them in waves
        vi.advanceTimersToNextTimer();
        await renewalsArrived(2);
        const written = a.completeUserTask(task!.id).then(
          () => undefined,
          (error: unknown) => error,
        );
        await renewalsArrived(3);
        const renewed = renewals.map((renewal) => renewal.instanceId);
        expect([renewed.slice(0, 2).sort(), renewed.slice(2)]).toEqual([[id, other].sort(), [id]]);
        for (const wave of waves) {
          for (const index of wave) renewals[index]!.held.open();
          // A wave is over once what it refused has been handled: the write once the completion is refused,
          // the round once it reported the other instance lost (its pass over both losses is synchronous).
          if (wave.includes(2)) expect(await written).toBeInstanceOf(LeaseLostError);
          if (wave.includes(0)) expect(await faults.first(other)).toBeInstanceOf(LeaseLostError);
        }

        // then each loss was reported once
        expect(faults.faults.map((fault) => fault.instanceId).sort()).toEqual([id, other].sort());
        expect(faults.faults.map((fault) => fault.error)).toEqual([
          expect.any(LeaseLostError),
          expect.any(LeaseLostError),
        ]);
      } finally {
        // A failure above must not leave close() waiting on a held renewal.
        for (const renewal of renewals) renewal.held.open();
        vi.useRealTimers();
      }
    },
  );

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
    const a = engine({ repository, handlers: recorded('a', [], held) });
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

describe('renewing the leases held', () => {
  /** A memory store holding instance `order-1`, whose renewals wait for `renewals` to open. */
  async function storeWithSlowRenewals(renewals: Gate): Promise<Repository> {
    const inner = createMemoryRepository();
    await inner.put({
      instanceId: 'order-1',
      seq: 1,
      parentSeq: null,
      schema: 1,
      definitionDigest: 'definition-digest',
      digest: 'digest-1',
      bytes: new TextEncoder().encode('order-1'),
      meta: {
        status: 'running',
        processId: 'p',
        definitionId: 'd',
        businessKey: null,
        parentId: null,
        callNodeId: null,
        dueAt: null,
        subscriptions: [],
      },
    });
    return new Proxy(inner, {
      get(target, property, receiver) {
        if (property !== 'renew') return Reflect.get(target, property, receiver);
        return async (...args: Parameters<Repository['renew']>) => {
          renewals.arrive();
          await renewals.promise;
          return target.renew(...args);
        };
      },
    });
  }

  it('should not report as lost a lease let go of while its renewal waited, which the store committed first', async () => {
    // given a renewal of a held lease waiting in the store's queue
    const renewals = gate();
    const repository = await storeWithSlowRenewals(renewals);
    const leases = new Leases(repository, new VirtualClock().view(), 'node-a', 30_000);
    expect(await leases.claim(['order-1'])).toEqual(new Set(['order-1']));
    const renewing = leases.renewAll();
    await renewals.reached;

    // when the instance's lease is released meanwhile, and the renewal then finds no lease
    await leases.release('order-1');
    renewals.open();

    // then nothing was lost: the lease was let go of
    expect(await renewing).toEqual([]);
    expect(await repository.lease('order-1')).toBeUndefined();
  });

  it('should report a lease another engine took while its renewal waited', async () => {
    // given a renewal of a held lease waiting in the store's queue
    const renewals = gate();
    const repository = await storeWithSlowRenewals(renewals);
    const clock = new VirtualClock();
    const leases = new Leases(repository, clock.view(), 'node-a', 30_000);
    await leases.claim(['order-1']);
    const renewing = leases.renewAll();
    await renewals.reached;

    // when another engine takes the instance over once the lease lapsed
    clock.advance(60_000);
    const taken = await repository.claim({ owner: 'node-b', ttlMs: 30_000, now: clock.now(), limit: 1 });
    expect(taken).toHaveLength(1);
    renewals.open();

    // then the loss is reported, and the lease is no longer held here
    const lost = await renewing;
    expect(lost).toEqual([{ instanceId: 'order-1', error: expect.any(LeaseLostError) }]);
    expect(leases.holds('order-1')).toBe(false);
  });
});

describe('the lease of an instance that ends', () => {
  /** A memory store recording the release flag of every put and every separate release. */
  function recordingStore(): { repository: Repository; puts: boolean[]; releases: string[] } {
    const inner = createMemoryRepository();
    const puts: boolean[] = [];
    const releases: string[] = [];
    const repository = new Proxy(inner, {
      get(target, property, receiver) {
        if (property === 'put') {
          return (checkpoint: Parameters<Repository['put']>[0]) => {
            puts.push(checkpoint.release === true);
            return target.put(checkpoint);
          };
        }
        if (property === 'release') {
          return (lease: Parameters<Repository['release']>[0]) => {
            releases.push(lease.instanceId);
            return target.release(lease);
          };
        }
        return Reflect.get(target, property, receiver);
      },
    });
    return { repository, puts, releases };
  }

  it('should let go in the write that ends it when no one hears what that write publishes', async () => {
    // given an engine no one listens to
    const { repository, puts, releases } = recordingStore();
    const engine = new Engine({ repository, handlers: recorded('a', []), backoff: () => 0 });
    opened.push(engine);
    await engine.deploy(workThenShip);

    // when an instance runs to its end
    const id = await engine.start('p');
    expect((await engine.settled(id)).status).toBe('completed');

    // then its last put let go of the lease, and nothing else did
    expect(puts.at(-1)).toBe(true);
    expect(puts.slice(0, -1)).not.toContain(true);
    expect(releases).toEqual([]);
    expect(await repository.lease(id)).toBeUndefined();
  });

  it.each([
    ['its end', 'instance.completed'],
    ['the checkpoint saved', 'checkpoint.saved'],
  ] as const)('should keep the lease until the ending write is published when someone hears %s', async (_, type) => {
    // given an engine with a listener for one event of the ending write
    const { repository, puts, releases } = recordingStore();
    const engine = new Engine({ repository, handlers: recorded('a', []), backoff: () => 0 });
    opened.push(engine);
    const heard: string[] = [];
    engine.on(type, (event) => heard.push(event.instanceId));
    await engine.deploy(workThenShip);

    // when an instance runs to its end
    const id = await engine.start('p');
    expect((await engine.settled(id)).status).toBe('completed');

    // then no put let go of the lease: a release after the publication did
    expect(heard).toContain(id);
    expect(puts).not.toContain(true);
    await expect.poll(() => releases).toEqual([id]);
    await expect.poll(() => repository.lease(id)).toBeUndefined();
  });

  it('should leave no lease on an ended instance, whatever write a kill lands on, no one listening', async () => {
    const uninterrupted = new KillSwitch(createMemoryRepository());
    const first = new Engine({ repository: uninterrupted, handlers: recorded('a', []), backoff: () => 0 });
    await first.deploy(workThenShip);
    await first.settled(await first.start('p'));
    await first.close();

    for (let killAt = 1; killAt <= uninterrupted.writes; killAt++) {
      // given a run killed right after its killAt-th write landed
      const repository = createMemoryRepository();
      const store = new KillSwitch(repository, killAt);
      const log: string[] = [];
      const killed = new Engine({ repository: store, handlers: recorded('a', log), backoff: () => 0 });
      await killed.deploy(workThenShip);
      const run = killed.start('p').then((id) => killed.settled(id));
      await Promise.race([store.killed, run.catch(() => {})]);
      const [stored] = await repository.instances();
      if (killAt === uninterrupted.writes) {
        // the last write ended it and let go of the lease: nothing is left for anyone to take up
        expect(stored?.status).toBe('completed');
        expect(await repository.lease(stored!.instanceId)).toBeUndefined();
      }

      // when another engine recovers what was stored and runs it to its end
      const next = engine({ repository, handlers: recorded('b', log) });
      await next.deploy(workThenShip);
      expect((await next.recover()).failed).toEqual([]);
      if (stored === undefined) continue;
      const settled = await next.settled(stored.instanceId);

      // then it ended, and no lease is left on it
      expect(settled.status, `killed at ${killAt}`).toBe('completed');
      await expect.poll(() => repository.lease(stored.instanceId), { message: `killed at ${killAt}` }).toBeUndefined();
    }
  });
});
