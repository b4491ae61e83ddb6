import { createMemoryRepository, type Repository } from '@thresher/checkpoint';
import { KillSwitch, VirtualClock } from '@thresher/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../src/engine.js';
import type { Handlers, Job } from '../src/index.js';
import {
  bpmn,
  chain,
  definitions,
  ext,
  flow,
  message,
  messageDefinition,
  process,
  signal,
  signalDefinition,
  timer,
} from './fixtures/bpmn/xml.js';

const TTL = 3_000;
const POLL = 100;

const task = (id: string, type = id) =>
  `<bpmn:serviceTask id="${id}">${ext(`<zeebe:taskDefinition type="${type}" />`)}</bpmn:serviceTask>`;

/** start → work → ship → end. */
const twoSteps = bpmn(`<bpmn:startEvent id="start" />${task('work')}${task('ship')}<bpmn:endEvent id="end" />
  ${chain('start', 'work', 'ship', 'end')}`);

/** start → an hour → ship → end. */
const delayed = bpmn(`<bpmn:startEvent id="start" />
  <bpmn:intermediateCatchEvent id="hour">${timer('timeDuration', 'PT1H')}</bpmn:intermediateCatchEvent>
  ${task('ship')}<bpmn:endEvent id="end" />${chain('start', 'hour', 'ship', 'end')}`);

/** start → fork → (work | wait for `paid`) → join → end: the instance holds a job and a message wait at once. */
const workAndPaid = bpmn(
  `<bpmn:startEvent id="start" /><bpmn:parallelGateway id="fork" />${task('work')}
  <bpmn:intermediateCatchEvent id="paid">${messageDefinition('m')}</bpmn:intermediateCatchEvent>
  <bpmn:parallelGateway id="join" /><bpmn:endEvent id="end" />
  ${flow('f1', 'start', 'fork')}${flow('f2', 'fork', 'work')}${flow('f3', 'fork', 'paid')}
  ${flow('f4', 'work', 'join')}${flow('f5', 'paid', 'join')}${flow('f6', 'join', 'end')}`,
).replace('<bpmn:process', `${message('m', 'paid', '=orderId')}<bpmn:process`);

/** The same with a signal `go` instead of the message. */
const workAndSignal = bpmn(
  `<bpmn:startEvent id="start" /><bpmn:parallelGateway id="fork" />${task('work')}
  <bpmn:intermediateCatchEvent id="go">${signalDefinition('s')}</bpmn:intermediateCatchEvent>
  <bpmn:parallelGateway id="join" /><bpmn:endEvent id="end" />
  ${flow('f1', 'start', 'fork')}${flow('f2', 'fork', 'work')}${flow('f3', 'fork', 'go')}
  ${flow('f4', 'work', 'join')}${flow('f5', 'go', 'join')}${flow('f6', 'join', 'end')}`,
).replace('<bpmn:process', `${signal('s', 'go')}<bpmn:process`);

/** A parent: fork → (work | call `child`) → join → end; the child waits on a user task. */
const parentWithWork = bpmn(
  `<bpmn:startEvent id="start" /><bpmn:parallelGateway id="fork" />${task('work')}
  <bpmn:callActivity id="call">${ext('<zeebe:calledElement processId="child" />')}</bpmn:callActivity>
  <bpmn:parallelGateway id="join" /><bpmn:endEvent id="end" />
  ${flow('f1', 'start', 'fork')}${flow('f2', 'fork', 'work')}${flow('f3', 'fork', 'call')}
  ${flow('f4', 'work', 'join')}${flow('f5', 'call', 'join')}${flow('f6', 'join', 'end')}`,
);
const childWithTask = definitions(
  process(
    `<bpmn:startEvent id="c_start" /><bpmn:userTask id="review" /><bpmn:endEvent id="c_end" />${chain('c_start', 'review', 'c_end')}`,
    'child',
  ),
  'child-defs',
);

/** `child`: start → box → end; and a parent calling it. */
const childBoxed = definitions(
  process(
    `<bpmn:startEvent id="c_start" />${task('box')}<bpmn:endEvent id="c_end" />${chain('c_start', 'box', 'c_end')}`,
    'child',
  ),
  'boxed-defs',
);
const callsBoxed = bpmn(`<bpmn:startEvent id="start" />
  <bpmn:callActivity id="call">${ext('<zeebe:calledElement processId="child" />')}</bpmn:callActivity>
  <bpmn:endEvent id="end" />${chain('start', 'call', 'end')}`);

/** A memory repository that records its writes in order: `put <id> <seq>`, `putWrites`, `claim` (one that took). */
function writeOrder(): { order: string[]; logging: Repository } {
  const order: string[] = [];
  const logged = createMemoryRepository();
  const logging = new Proxy(logged, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const result = await value.apply(target, args);
        if (property === 'put') {
          const { instanceId, seq } = args[0] as { instanceId: string; seq: number };
          order.push(`put ${instanceId} ${seq}`);
        } else if (property === 'putWrites') order.push('putWrites');
        else if (property === 'claim' && (result as unknown[]).length > 0) order.push('claim');
        return result;
      };
    },
  });
  return { order, logging };
}

/**
 * The call model run by an engine killed right after a chosen write: an uninterrupted dry run records the
 * write order, `at` picks the 0-based index of the write to die after (given the child's id). The killed
 * engine is abandoned, as a crashed process is: never closed. `countBox` counts `box` runs across engines.
 */
async function killedCallRun(dehydrate: boolean, at: (order: string[], childId: string) => number) {
  const models = [childBoxed, callsBoxed];
  const { order, logging } = writeOrder();
  const dry = engineOn(logging, new VirtualClock(), { box: () => ({ boxed: true }) }, dehydrate);
  for (const xml of models) await dry.deploy(xml);
  const dryParent = await dry.start('p');
  await until(new VirtualClock(), async () => (await dry.instance(dryParent))?.status === 'completed');
  const childId = (await logging.instances({ children: true }))[0]!.instanceId;
  const killAt = at(order, childId) + 1;

  const repository = createMemoryRepository();
  const clock = new VirtualClock();
  const store = new KillSwitch(repository, killAt);
  let runs = 0;
  const countBox = () => {
    runs += 1;
    return { boxed: runs };
  };
  const killed = new Engine({
    repository: store,
    handlers: { box: countBox },
    clock: clock.view(),
    leaseTtlMs: TTL,
    dehydrate,
  });
  for (const xml of models) await killed.deploy(xml);
  void killed.start('p');
  await store.killed;
  return { order, killAt, repository, clock, countBox, boxes: () => runs };
}

const engines: Engine[] = [];
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
});

function engineOn(repository: Repository, clock: VirtualClock, handlers: Handlers, dehydrate = false): Engine {
  const engine = new Engine({
    repository,
    handlers,
    clock: clock.view(),
    leaseTtlMs: TTL,
    backoff: () => 0,
    dehydrate,
  });
  engines.push(engine);
  return engine;
}

/** Handlers recording `<name>:<element>`; `work` never answers when `hang` is set. */
function recording(name: string, log: string[], hang = false): Handlers {
  const record = (result: Record<string, unknown>) => (job: Job) => {
    log.push(`${name}:${job.elementId}`);
    return hang && job.elementId === 'work' ? new Promise<never>(() => {}) : result;
  };
  return { work: record({ worked: name }), ship: record({ shipped: name }) };
}

/** A parent parked at its call activity and its child parked at a user task, by engine `a` (a worker, or not). */
async function parkedCall(worker: boolean) {
  const repository = createMemoryRepository();
  const clock = new VirtualClock();
  const a = engineOn(repository, clock, {}, true);
  if (worker) a.startWorker({ pollMs: POLL });
  await a.deploy(childWithTask);
  await a.deploy(callsBoxed);
  const parent = await a.start('p');
  const childId = (await a.instance(parent))!.calls[0]!.instanceId;
  await until(clock, async () => !(await repository.lease(parent)) && !(await repository.lease(childId)));
  return { repository, clock, a, parent, childId };
}

/** `count` instances parked an hour on a timer by worker `a`, which then stopped (their leases let go). */
async function parkedOnTimer(count: number) {
  const repository = createMemoryRepository();
  const clock = new VirtualClock();
  const log: string[] = [];
  const a = engineOn(repository, clock, recording('a', log));
  a.startWorker({ pollMs: POLL });
  await a.deploy(delayed);
  const ids = await Promise.all(Array.from({ length: count }, () => a.start('p')));
  await until(clock, async () => (await Promise.all(ids.map((id) => repository.lease(id)))).every((l) => !l));
  await a.close();
  return { repository, clock, log, ids };
}

/**
 * Moves the virtual clock in poll-sized steps until `done` holds, letting each step's work run first: the
 * engine's work on a memory repository is promise continuations (a retirement is one setImmediate away), so
 * a turn of the event loop is where it has run; no step waits on real time.
 */
async function until(clock: VirtualClock, done: () => boolean | Promise<boolean>, limit = 500): Promise<void> {
  for (let step = 0; step < limit; step++) {
    if (await done()) return;
    clock.advance(POLL);
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`the condition never held in ${limit} polls (${(limit * POLL) / 1000} s of virtual time)`);
}

describe('workers on one store', () => {
  it('should take up, after its lease, an instance a stopped worker left with a job in flight, running each completed step once', async () => {
    // given worker a closed while its work handler had not answered: the instance's lease is left to lapse
    const repository = createMemoryRepository();
    const clock = new VirtualClock();
    const log: string[] = [];
    const a = engineOn(repository, clock, recording('a', log, true));
    a.startWorker({ pollMs: POLL });
    await a.deploy(twoSteps);
    const id = await a.start('p');
    await until(clock, () => log.length === 1);
    await a.close();
    expect(await repository.lease(id)).toMatchObject({ owner: a.owner });

    // when worker b runs on the store
    const b = engineOn(repository, clock, recording('b', log));
    const worker = b.startWorker({ pollMs: POLL });

    // then, once the lease lapsed, b took the instance up and ran it to its end
    await until(clock, async () => (await b.instance(id))?.status === 'completed');
    expect(log).toEqual(['a:work', 'b:work', 'b:ship']);
    expect(worker.counts).toMatchObject({ claimed: 1, completed: 1, lost: 0, failed: 0 });
  });

  it('should not take up an instance another worker is running', async () => {
    // given worker a running an instance whose work handler has not answered, renewing its lease
    const repository = createMemoryRepository();
    const clock = new VirtualClock();
    const log: string[] = [];
    const a = engineOn(repository, clock, recording('a', log, true));
    a.startWorker({ pollMs: POLL });
    await a.deploy(twoSteps);
    const id = await a.start('p');

    // when worker b polls for a while shorter than the lease
    const b = engineOn(repository, clock, recording('b', log));
    const worker = b.startWorker({ pollMs: POLL });
    await until(clock, () => clock.now() >= Date.UTC(2026, 0, 1) + TTL / 2);

    // then b left it alone
    expect(worker.counts.claimed).toBe(0);
    expect(log).toEqual(['a:work']);
    expect((await repository.lease(id))?.owner).toBe(a.owner);
  });

  it('should wake, on another worker, an instance parked on a timer by a worker that stopped', async () => {
    // given an instance parked an hour on a timer by worker a, which then stopped
    const { repository, clock, log, ids } = await parkedOnTimer(1);
    const id = ids[0]!;

    // when worker b runs and the hour passes
    const b = engineOn(repository, clock, recording('b', log));
    b.startWorker({ pollMs: POLL });
    clock.advance(60 * 60_000);

    // then b found the due timer through the store and ran the instance to its end
    await until(clock, async () => (await b.instance(id))?.status === 'completed');
    expect(log).toEqual(['b:ship']);
  });

  it('should read the heads of the instances one look claims in one store read, not one read each', async () => {
    // given five instances parked an hour on a timer by worker a, which then stopped
    const { repository, clock, log, ids } = await parkedOnTimer(5);

    // when worker b, on a store that counts its reads, finds them all due in one look
    const reads = { get: [] as string[], getMany: [] as string[][] };
    const counted = new Proxy(repository, {
      get(target, name, receiver) {
        if (name === 'get') {
          return (id: string, seq?: number) => {
            reads.get.push(id);
            return target.get(id, seq);
          };
        }
        if (name === 'getMany') {
          return (many: string[]) => {
            reads.getMany.push([...many]);
            return target.getMany(many);
          };
        }
        return Reflect.get(target, name, receiver);
      },
    });
    const b = engineOn(counted, clock, recording('b', log));
    clock.advance(60 * 60_000);
    b.startWorker({ pollMs: POLL });
    await until(clock, async () => (await repository.instances({ status: 'completed' })).length === ids.length);

    // then their heads came in one read, and none was read again on its own to restore it
    expect(reads.getMany).toEqual([[...ids].sort()]);
    expect(reads.get.filter((id) => ids.includes(id))).toEqual([]);
    expect(log.filter((entry) => entry === 'b:ship')).toHaveLength(5);
    await b.close();
  });

  it('should hand a message to the worker holding its instance, which takes it once', async () => {
    // given worker a holding an instance with a job in flight and a message wait
    const repository = createMemoryRepository();
    const clock = new VirtualClock();
    const log: string[] = [];
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const a = engineOn(repository, clock, {
      work: async (job) => {
        log.push(`a:${job.elementId}`);
        await answered;
        return { worked: 'a' };
      },
    });
    a.startWorker({ pollMs: POLL });
    await a.deploy(workAndPaid);
    const id = await a.start('p', { variables: { orderId: 'A-1' } });
    await until(clock, () => log.length === 1);

    // when another engine correlates the message
    const other = engineOn(repository, clock, {});
    const result = await other.correlateMessage('paid', { correlationKey: 'A-1', variables: { paid: true } });

    // then it was handed over through the store, and the holder took it
    expect(result).toEqual({ correlated: false, buffered: true, instanceId: null, instanceIds: [], heldElsewhere: id });
    answer();
    await until(clock, async () => (await a.instance(id))?.status === 'completed');
    expect((await a.instance(id))?.variables).toMatchObject({ paid: true, worked: 'a' });
    expect(log).toEqual(['a:work']);
  });

  it('should hand a signal to the worker holding a waiting instance, which takes it once', async () => {
    // given worker a holding an instance with a job in flight and a signal wait
    const repository = createMemoryRepository();
    const clock = new VirtualClock();
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const a = engineOn(repository, clock, { work: () => answered.then(() => ({ worked: 'a' })) });
    a.startWorker({ pollMs: POLL });
    await a.deploy(workAndSignal);
    const id = await a.start('p');
    await until(clock, async () => (await repository.lease(id)) !== undefined);

    // when another engine broadcasts the signal, twice under one id
    const other = engineOn(repository, clock, {});
    expect(await other.broadcastSignal('go', { variables: { go: 1 }, signalId: 's-1' })).toEqual([id]);
    expect(await other.broadcastSignal('go', { variables: { go: 2 }, signalId: 's-1' })).toEqual([id]);

    // then the holder took it once and ran on
    answer();
    await until(clock, async () => (await a.instance(id))?.status === 'completed');
    expect((await a.instance(id))?.variables).toEqual({ go: 1, worked: 'a' });
  });

  it("should hand a child's end to its parent once the engine holding the parent lets go", async () => {
    // given a parent held by worker a (its work handler has not answered) whose child waits on a user task
    const repository = createMemoryRepository();
    const clock = new VirtualClock();
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    let works = 0;
    const a = engineOn(repository, clock, {
      work: () => {
        works++;
        return answered.then(() => ({ worked: 'a' }));
      },
    });
    a.startWorker({ pollMs: POLL });
    await a.deploy(childWithTask);
    await a.deploy(parentWithWork);
    const parent = await a.start('p');
    const view = await a.instance(parent);
    const childId = view!.calls[0]!.instanceId;
    await until(clock, async () => (await repository.get(childId)) !== undefined && !(await repository.lease(childId)));

    // when another engine completes the child's task while a still holds the parent
    const b = engineOn(repository, clock, {});
    const [review] = await b.userTasks({ instanceId: childId });
    await b.completeUserTask(review!.id);
    expect((await b.instance(childId))?.status).toBe('completed');
    expect((await a.instance(parent))?.status).toBe('running');

    // then, once a's work is done and the parent parked, the child's end reaches it and it completes
    answer();
    await until(
      clock,
      async () => (await repository.get(parent)) !== undefined && (await a.instance(parent))?.status === 'completed',
    );
    expect(works).toBe(1);
  });

  it("should deliver a child's end to a parked parent whose claim lost a race with another engine's, on a later try", async () => {
    // given a parent and its child both parked (no lease): the child waits on a user task
    const { repository, clock, parent, childId } = await parkedCall(false);

    // when another engine completes the child, and its first claim of the parent finds the row taken by a
    // claim under way elsewhere (PostgreSQL skips a locked row: nothing claimed, no lease to read yet)
    let raced = 0;
    const racing = new Proxy(repository, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (property !== 'claim') return typeof value === 'function' ? value.bind(target) : value;
        return (options: { instanceIds?: string[] }) => {
          if (raced === 0 && options.instanceIds?.includes(parent)) {
            raced++;
            return Promise.resolve([]);
          }
          return value.call(target, options);
        };
      },
    });
    const b = engineOn(racing, clock, {});
    const faults: Error[] = [];
    b.onFault(({ error }) => faults.push(error));
    const [review] = await b.userTasks({ instanceId: childId });
    await b.completeUserTask(review!.id);

    // then the delivery is tried again, not given up: the parent takes the child's end and completes
    await until(clock, async () => (await b.instance(parent))?.status === 'completed');
    expect(raced).toBe(1);
    expect(faults).toEqual([]);
    expect((await b.instance(childId))?.status).toBe('completed');
    expect(await repository.lease(childId)).toBeUndefined();
  });

  it("should take up again, once its lease lapses, a child whose end could not be delivered for a reason of the parent's", async () => {
    // given a parent and its child both parked, and a worker looking for work left behind
    const { repository, clock, a, parent, childId } = await parkedCall(true);

    // when another engine completes the child, and reading the parent to deliver its end fails once (its
    // first read, in the child's restore, checks the link)
    let reads = 0;
    const flaky = new Proxy(repository, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (property !== 'get') return typeof value === 'function' ? value.bind(target) : value;
        return (instanceId: string, seq?: number) => {
          if (instanceId === parent && ++reads === 2) {
            return Promise.reject(new Error('connection reset while reading the parent'));
          }
          return value.call(target, instanceId, seq);
        };
      },
    });
    const b = engineOn(flaky, clock, {});
    const faults: Error[] = [];
    b.onFault(({ error }) => faults.push(error));
    const [review] = await b.userTasks({ instanceId: childId });
    await b.completeUserTask(review!.id);
    await until(clock, () => faults.length > 0);

    // then the fault is loud; b no longer holds the child (closing it releases nothing, as renewing it would
    // renew nothing), so its lease lapses and the worker takes it up and delivers its end
    expect(faults.map((error) => error.message)).toEqual(['connection reset while reading the parent']);
    await b.close();
    await until(
      clock,
      async () => (await repository.get(parent)) !== undefined && (await a.instance(parent))?.status === 'completed',
    );
    expect(await repository.lease(childId)).toBeUndefined();
  });

  it('should run a child whose engine died right after the write that stored and claimed it, once its leases lapse', async () => {
    // given the write order of an uninterrupted run: where the child's first checkpoint lands (and is claimed)
    // when an engine is killed right after storing the child
    const { killAt, repository, clock, countBox, boxes } = await killedCallRun(false, (order, childId) =>
      order.indexOf(`put ${childId} 0`),
    );
    expect(killAt).toBeGreaterThan(0);
    const [stored] = await repository.instances({ children: true });
    expect((await repository.lease(stored!.instanceId))?.token).toBeGreaterThan(0);

    // and a worker on the store takes up the parent once the dead engine's lease lapsed
    const b = engineOn(repository, clock, { box: countBox });
    b.startWorker({ pollMs: POLL });
    const [parent] = await repository.instances({ roots: true });
    await until(clock, async () => (await b.instance(parent!.instanceId))?.status === 'completed');

    // then the child ran, once, and the parent completed
    expect(boxes()).toBe(1);
    const child = (await b.instance(parent!.instanceId))!.calls;
    expect(child).toEqual([]);
    expect((await repository.instances({ children: true, status: 'completed' })).length).toBe(1);
  });

  it("should deliver a child's end its dead engine stored but never delivered, once the lease lapses", async () => {
    // given a dehydrating engine killed right after storing the child's end, before telling the parent
    const { killAt, repository, clock, countBox, boxes } = await killedCallRun(true, (order, childId) =>
      order.indexOf(`put ${childId} 1`),
    );
    expect(killAt).toBeGreaterThan(0);
    const [parent] = await repository.instances({ roots: true });
    const [child] = await repository.instances({ children: true });
    expect(child?.status).toBe('completed');
    // the parent, parked on its call, had been let go of (dehydrated) — as it is when the child takes a while
    const parentLease = await repository.lease(parent!.instanceId);
    if (parentLease) await repository.release(parentLease);

    // and a worker runs on the store
    const b = engineOn(repository, clock, { box: countBox });
    b.startWorker({ pollMs: POLL });

    // then, once the dead engine's lease on the child lapsed, the worker delivered its end and the parent ran on
    await until(clock, async () => (await b.instance(parent!.instanceId))?.status === 'completed');
    expect(boxes()).toBe(1);
    await until(clock, async () => (await repository.lease(child!.instanceId)) === undefined);
  });

  it('should refuse a concurrency or poll interval that is not a positive integer', () => {
    const engine = engineOn(createMemoryRepository(), new VirtualClock(), {});
    expect(() => engine.startWorker({ concurrency: 0 })).toThrow(/concurrency/);
    expect(() => engine.startWorker({ pollMs: 1.5 })).toThrow(/pollMs/);
  });
});
