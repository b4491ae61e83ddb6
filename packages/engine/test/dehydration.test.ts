import { createMemoryRepository, type Repository } from '@thresher/checkpoint';
import { VirtualClock } from '@thresher/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Engine } from '../src/engine.js';
import type { EngineEvent, Handlers } from '../src/index.js';
import { bpmn, chain, definitions, ext, message, messageDefinition, process, timer } from './fixtures/bpmn/xml.js';

const task = (id: string) =>
  `<bpmn:serviceTask id="${id}">${ext(`<zeebe:taskDefinition type="${id}" />`)}</bpmn:serviceTask>`;

/** start → work → review (user task) → ship → end. */
const reviewed = bpmn(`<bpmn:startEvent id="start" />${task('work')}<bpmn:userTask id="review" />${task('ship')}
  <bpmn:endEvent id="end" />${chain('start', 'work', 'review', 'ship', 'end')}`);

/** start → wait an hour → ship → end. */
const delayed = bpmn(`<bpmn:startEvent id="start" />
  <bpmn:intermediateCatchEvent id="hour">${timer('timeDuration', 'PT1H')}</bpmn:intermediateCatchEvent>
  ${task('ship')}<bpmn:endEvent id="end" />${chain('start', 'hour', 'ship', 'end')}`);

/** start → wait for message `paid` keyed by orderId → ship → end. */
const paid = bpmn(
  `<bpmn:startEvent id="start" />
  <bpmn:intermediateCatchEvent id="wait">${messageDefinition('m')}</bpmn:intermediateCatchEvent>
  ${task('ship')}<bpmn:endEvent id="end" />${chain('start', 'wait', 'ship', 'end')}`,
).replace('<bpmn:process', `${message('m', 'paid', '=orderId')}<bpmn:process`);

/** A parent calling process `child` (`reviewed`, deployed on its own) and shipping after it. */
const caller = bpmn(`<bpmn:startEvent id="start" />
  <bpmn:callActivity id="call">${ext('<zeebe:calledElement processId="child" />')}</bpmn:callActivity>
  ${task('ship')}<bpmn:endEvent id="end" />${chain('start', 'call', 'ship', 'end')}`);
const child = definitions(
  process(
    `<bpmn:startEvent id="start" />${task('work')}<bpmn:userTask id="review" />${task('ship')}
  <bpmn:endEvent id="end" />${chain('start', 'work', 'review', 'ship', 'end')}`,
    'child',
  ),
  'child-defs',
);

function counted(): { runs: Record<string, number>; handlers: Handlers } {
  const runs: Record<string, number> = {};
  const handler = (type: string) => () => {
    runs[type] = (runs[type] ?? 0) + 1;
    return { [`${type}Done`]: true };
  };
  return { runs, handlers: { work: handler('work'), ship: handler('ship') } };
}

const engines: Engine[] = [];
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
});

function dehydrating(repository: Repository, handlers: Handlers, clock?: VirtualClock): Engine {
  const engine = new Engine({ repository, handlers, dehydrate: true, ...(clock ? { clock: clock.view() } : {}) });
  engines.push(engine);
  return engine;
}

/** An instance of `reviewed` parked at its user task by an engine that did not dehydrate, since closed. */
async function parkedByAClosedEngine(): Promise<{ repository: Repository; handlers: Handlers; id: string }> {
  const repository = createMemoryRepository();
  const { handlers } = counted();
  const first = new Engine({ repository, handlers });
  await first.deploy(reviewed);
  const id = await first.start('p');
  await first.settled(id);
  await first.close();
  return { repository, handlers, id };
}

function restores(engine: Engine): string[] {
  const seen: string[] = [];
  engine.on('instance.restored', (event: Extract<EngineEvent, { type: 'instance.restored' }>) =>
    seen.push(event.instanceId),
  );
  return seen;
}

describe('an engine that dehydrates', () => {
  it('should let go of a parked instance and its lease, and restore it when its user task is completed', async () => {
    // given an instance parked at a user task
    const repository = createMemoryRepository();
    const { runs, handlers } = counted();
    const engine = dehydrating(repository, handlers);
    const restored = restores(engine);
    await engine.deploy(reviewed);
    const id = await engine.start('p');
    const parked = await engine.settled(id);

    // then it left memory: its lease is released, so another engine could take its next event
    expect(parked.status).toBe('waiting');
    await expect.poll(() => repository.lease(id)).toBeUndefined();

    // when its task is completed
    const [task] = await engine.userTasks({ instanceId: id });
    await engine.completeUserTask(task!.id, { ok: true });

    // then it came back from the store, ran on, and each handler ran once
    expect((await engine.settled(id)).status).toBe('completed');
    expect(restored.length).toBeGreaterThan(0);
    expect(runs).toEqual({ work: 1, ship: 1 });
    expect((await engine.instance(id))?.variables).toEqual({ workDone: true, ok: true, shipDone: true });
  });

  it('should hand a parked instance to another engine on the store, which takes its next event', async () => {
    // given an instance parked and let go of by engine a
    const repository = createMemoryRepository();
    const a = counted();
    const first = dehydrating(repository, a.handlers);
    await first.deploy(reviewed);
    const id = await first.start('p');
    await first.settled(id);
    await expect.poll(() => repository.lease(id)).toBeUndefined();

    // when engine b, on the same store, completes its task
    const b = counted();
    const second = dehydrating(repository, b.handlers);
    const [task] = await second.userTasks({ instanceId: id });
    await second.completeUserTask(task!.id);

    // then b ran it on, and no step ran twice
    expect((await second.settled(id)).status).toBe('completed');
    expect(a.runs).toEqual({ work: 1 });
    expect(b.runs).toEqual({ ship: 1 });
  });

  it('should restore an instance whose BPMN timer falls due, through the store, and run it on', async () => {
    // given an instance parked an hour on a timer, out of memory
    const repository = createMemoryRepository();
    const clock = new VirtualClock();
    const { runs, handlers } = counted();
    const engine = dehydrating(repository, handlers, clock);
    const restored = restores(engine);
    await engine.deploy(delayed);
    const id = await engine.start('p');
    const parked = await engine.settled(id);
    if (parked.status !== 'waiting') throw new Error(`expected waiting, got ${parked.status}`);
    await expect.poll(() => repository.lease(id)).toBeUndefined();

    // when the hour passes
    clock.advanceTo(parked.timers[0]!.dueAt);

    // then the engine found it due, restored it and completed it
    await expect.poll(() => restored).toEqual([id]);
    await expect.poll(async () => (await engine.instance(id))?.status).toBe('completed');
    expect(runs).toEqual({ ship: 1 });
  });

  it('should restore an instance waiting on a message when the message comes', async () => {
    // given an instance waiting for `paid`, out of memory
    const repository = createMemoryRepository();
    const { runs, handlers } = counted();
    const engine = dehydrating(repository, handlers);
    await engine.deploy(paid);
    const id = await engine.start('p', { variables: { orderId: 'A-1' } });
    await engine.settled(id);
    await expect.poll(() => repository.lease(id)).toBeUndefined();

    // when the message is correlated
    const result = await engine.correlateMessage('paid', { correlationKey: 'A-1' });

    // then it reached the instance, which completed
    expect(result).toMatchObject({ instanceId: id });
    expect((await engine.settled(id)).status).toBe('completed');
    expect(runs).toEqual({ ship: 1 });
  });

  it('should restore a parent waiting on its child when the child ends', async () => {
    // given a parent parked on a call whose child is parked at a user task, both out of memory
    const repository = createMemoryRepository();
    const { runs, handlers } = counted();
    const engine = dehydrating(repository, handlers);
    await engine.deploy(child);
    await engine.deploy(caller);
    const parent = await engine.start('p');
    const waiting = await engine.settled(parent);
    if (waiting.status !== 'waiting') throw new Error(`expected waiting, got ${waiting.status}`);
    const [call] = waiting.calls;
    await expect.poll(() => repository.lease(parent)).toBeUndefined();

    // when the child's task is completed
    const [task] = await engine.userTasks({ instanceId: call!.instanceId });
    await engine.completeUserTask(task!.id);

    // then the child ended and the parent ran on to its end
    expect((await engine.settled(parent)).status).toBe('completed');
    expect((await engine.instance(call!.instanceId))?.status).toBe('completed');
    expect(runs).toEqual({ work: 1, ship: 2 });
  });

  it('should let go of an instance recover() restored, once the restore has had its turn', async () => {
    // given an instance parked at a user task by an engine that did not dehydrate, since closed
    const { repository, handlers, id } = await parkedByAClosedEngine();

    // when a dehydrating engine recovers it
    const engine = dehydrating(repository, handlers);
    const report = await engine.recover({ instanceIds: [id] });

    // then it was restored, and left memory and its lease after the restore
    expect(report.restored).toEqual([id]);
    await expect.poll(() => repository.lease(id)).toBeUndefined();
  });
});

describe('an engine that does not dehydrate', () => {
  it('should leave nothing behind a restore that holds the instance past close (no retirement is scheduled)', async () => {
    // given an instance parked at a user task, its engine gone
    const { repository, handlers, id } = await parkedByAClosedEngine();

    // when an engine that keeps its instances in memory restores it and closes, without the event loop turning
    const scheduled = vi.spyOn(globalThis, 'setImmediate');
    try {
      const engine = new Engine({ repository, handlers });
      expect((await engine.recover({ instanceIds: [id] })).restored).toEqual([id]);
      expect(await engine.userTasks({ instanceId: id })).toHaveLength(1);
      await engine.close();

      // then no callback was left queued: a loop of restores in one turn would otherwise keep every one alive
      expect(scheduled).not.toHaveBeenCalled();
    } finally {
      scheduled.mockRestore();
    }
  });
});
