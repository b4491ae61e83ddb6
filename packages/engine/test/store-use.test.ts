// What the engine reads from and writes to its store for settled, start and cancel: no more than it needs.
import { createMemoryRepository, type Repository } from '@thresher/checkpoint';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../src/engine.js';
import { bpmn, chain, definitions, ext, process } from './fixtures/bpmn/xml.js';

/** start → review (user task) → end. */
const reviewed = bpmn(
  `<bpmn:startEvent id="start" /><bpmn:userTask id="review" /><bpmn:endEvent id="end" />${chain('start', 'review', 'end')}`,
);

type Method = keyof Repository;

/** The repository, and how often the engine called each of `methods` through it. */
function counting<M extends Method>(
  inner: Repository,
  methods: readonly M[] = ['claim', 'lease', 'get'] as M[],
): { repository: Repository; calls: Record<M, number> } {
  const calls = Object.fromEntries(methods.map((method) => [method, 0])) as Record<M, number>;
  const repository = new Proxy(inner, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (property in calls) calls[property as M]++;
        return value.apply(target, args);
      };
    },
  });
  return { repository, calls };
}

const engines: Engine[] = [];
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
});

function engineOn(repository: Repository): Engine {
  const engine = new Engine({ repository });
  engines.push(engine);
  return engine;
}

describe('settled of an instance out of memory', () => {
  /** Run an instance of `reviewed` on `engine` to its end. */
  async function runToEnd(engine: Engine): Promise<string> {
    await engine.deploy(reviewed);
    const id = await engine.start('p');
    const parked = await engine.settled(id);
    if (parked.status !== 'waiting') throw new Error(`expected a waiting instance, got ${parked.status}`);
    const ended = new Promise<void>((resolve) => engine.on('instance.completed', () => resolve()));
    await engine.completeUserTask(parked.userTasks[0]!.id);
    await ended;
    return id;
  }

  it('should answer an instance this engine ended without reading the store', async () => {
    const { repository, calls } = counting(createMemoryRepository());
    const engine = engineOn(repository);
    const id = await runToEnd(engine);
    Object.assign(calls, { claim: 0, lease: 0, get: 0 });

    const state = await engine.settled(id);

    expect(state).toEqual({ instanceId: id, status: 'completed' });
    expect(calls).toEqual({ claim: 0, lease: 0, get: 0 });
  });

  it('should answer an instance another engine ended from one read of the store, without claiming or restoring it', async () => {
    const inner = createMemoryRepository();
    const id = await runToEnd(engineOn(inner));
    const { repository, calls } = counting(inner);
    const engine = engineOn(repository);
    const restored: string[] = [];
    engine.on('instance.restored', (event) => restored.push(event.instanceId));

    const state = await engine.settled(id);

    expect(state).toEqual({ instanceId: id, status: 'completed' });
    expect(calls).toEqual({ claim: 0, lease: 0, get: 1 });
    expect(restored).toEqual([]);
  });

  it('should restore a running instance another engine left, claiming it, to tell where it waits', async () => {
    const inner = createMemoryRepository();
    const first = engineOn(inner);
    await first.deploy(reviewed);
    const id = await first.start('p');
    await first.settled(id);
    await first.close();
    const { repository, calls } = counting(inner);
    const second = engineOn(repository);
    const restored: string[] = [];
    second.on('instance.restored', (event) => restored.push(event.instanceId));

    const state = await second.settled(id);

    expect(state).toMatchObject({ instanceId: id, status: 'waiting' });
    expect(state.status === 'waiting' && state.userTasks.map((task) => task.elementId)).toEqual(['review']);
    expect(restored).toEqual([id]);
    expect(calls.claim).toBeGreaterThan(0);
  });
});

describe('recovering instances', () => {
  it('should read the heads of the instances it claimed in one read per 500, not one read each', async () => {
    const inner = createMemoryRepository();
    const first = engineOn(inner);
    await first.deploy(reviewed);
    const ids = await Promise.all(Array.from({ length: 600 }, () => first.start('p')));
    await Promise.all(ids.map((id) => first.settled(id)));
    await first.close();
    const { repository, calls } = counting(inner, ['get', 'getMany']);
    const second = engineOn(repository);

    const report = await second.recover();

    expect(report.failed).toEqual([]);
    expect(report.restored).toHaveLength(600);
    expect(calls).toEqual({ get: 0, getMany: 2 });
    expect(await second.userTasks({ elementId: 'review' })).toHaveLength(600);
  });
});

describe('the deployments a start looks in', () => {
  it('should read them once for starts that come while a read is under way, and again for a start after', async () => {
    const inner = createMemoryRepository();
    const { repository, calls } = counting(inner, ['deployments']);
    const engine = engineOn(repository);
    await engine.deploy(reviewed);
    calls.deployments = 0;

    await Promise.all(Array.from({ length: 50 }, () => engine.start('p')));
    const together = calls.deployments;
    // A newer version deployed by another engine on the store is what the next start runs.
    const other = engineOn(inner);
    await other.deploy(reviewed.replaceAll('review', 'check'));
    const id = await engine.start('p');
    const state = await engine.settled(id);

    expect(together).toBeLessThanOrEqual(2);
    expect(calls.deployments).toBe(together + 1);
    expect(state.status === 'waiting' && state.userTasks.map((task) => task.elementId)).toEqual(['check']);
  });

  it('should keep what it read for the starts after, while no other deployment is made', async () => {
    const { repository, calls } = counting(createMemoryRepository(), ['deployments', 'put']);
    const engine = engineOn(repository);
    await engine.deploy(reviewed);
    calls.deployments = 0;

    for (let i = 0; i < 5; i++) await engine.start('p');

    expect(calls.deployments).toBe(1);
    expect(calls.put).toBe(5);
  });

  it('should start on the version another engine deployed since its read, storing nothing of the refused choice and reporting no fault', async () => {
    // given an engine that started an instance on version 1, and another engine that deployed version 2
    const inner = createMemoryRepository();
    const engine = engineOn(inner);
    const faults: unknown[] = [];
    engine.onFault((event) => faults.push(event));
    await engine.deploy(reviewed);
    const before = await engine.start('p');
    await engineOn(inner).deploy(reviewed.replaceAll('review', 'check'));

    // when it starts the process again
    const id = await engine.start('p');

    // then the instance runs on version 2, and the store holds only the two instances started
    expect((await engine.instance(id))?.version).toBe(2);
    expect((await inner.instances()).map(({ instanceId }) => instanceId).sort()).toEqual([before, id].sort());
    expect(faults).toEqual([]);
  });

  it('should start a called child on the version deployed since the parent started, not on one the engine kept', async () => {
    // given a parent waiting at a user task before it calls process `child`, version 1 of which is deployed
    const inner = createMemoryRepository();
    const engine = engineOn(inner);
    const childOf = (task: string) =>
      definitions(
        process(
          `<bpmn:startEvent id="s" /><bpmn:userTask id="${task}" /><bpmn:endEvent id="e" />${chain('s', task, 'e')}`,
          'child',
        ),
        'child-defs',
      );
    await engine.deploy(childOf('first'));
    await engine.deploy(
      bpmn(`<bpmn:startEvent id="start" /><bpmn:userTask id="wait" />
        <bpmn:callActivity id="call">${ext('<zeebe:calledElement processId="child" />')}</bpmn:callActivity>
        <bpmn:endEvent id="end" />${chain('start', 'wait', 'call', 'end')}`),
    );
    const parent = await engine.start('p');
    // and version 2 of the child deployed by another engine since
    await engineOn(inner).deploy(childOf('second'));

    // when the parent moves on to its call
    const [task] = await engine.userTasks({ instanceId: parent });
    await engine.completeUserTask(task!.id);

    // then the child runs version 2
    const state = await engine.settled(parent);
    if (state.status !== 'waiting') throw new Error(`expected waiting, got ${state.status}`);
    const child = await engine.instance(state.calls[0]!.instanceId);
    expect(child?.version).toBe(2);
    expect((await engine.userTasks({ instanceId: child!.id })).map(({ elementId }) => elementId)).toEqual(['second']);
  });

  it('should read again for a process its last read did not have', async () => {
    const inner = createMemoryRepository();
    const engine = engineOn(inner);
    await engine.deploy(reviewed);
    await engine.start('p');
    await engineOn(inner).deploy(
      definitions(
        process(`<bpmn:startEvent id="start" /><bpmn:endEvent id="end" />${chain('start', 'end')}`, 'other'),
        'defs-other',
      ),
    );

    const id = await engine.start('other');

    expect((await engine.instance(id))?.processId).toBe('other');
  });

  it('should read them at every start on a store that does not check a first put against them', async () => {
    const inner = createMemoryRepository();
    const unchecked = new Proxy(inner, {
      get: (target, property) => (property === 'checksDeploymentsSeen' ? undefined : Reflect.get(target, property)),
    });
    const { repository, calls } = counting(unchecked, ['deployments']);
    const engine = engineOn(repository);
    await engine.deploy(reviewed);
    calls.deployments = 0;

    for (let i = 0; i < 3; i++) await engine.start('p');
    await engineOn(inner).deploy(reviewed.replaceAll('review', 'check'));
    const id = await engine.start('p');

    expect(calls.deployments).toBe(4);
    expect((await engine.instance(id))?.version).toBe(2);
  });
});

describe('cancelling an instance', () => {
  it('should leave an instance that already ended as it is: a second cancel writes nothing and throws nothing', async () => {
    const repository = createMemoryRepository();
    const engine = engineOn(repository);
    await engine.deploy(reviewed);
    const id = await engine.start('p');
    await engine.settled(id);
    await engine.cancel(id);
    const saved = (await repository.list(id)).length;

    await engine.cancel(id);

    expect(await engine.settled(id)).toMatchObject({ instanceId: id, status: 'terminated' });
    expect((await repository.list(id)).length).toBe(saved);
  });
});
