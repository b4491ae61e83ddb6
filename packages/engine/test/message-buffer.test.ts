import { createMemoryRepository, type Repository } from '@thresher/checkpoint';
import { KillSwitch, VirtualClock } from '@thresher/testing';
import { describe, expect, it } from 'vitest';
import { Engine } from '../src/engine.js';
import type { EngineEvent } from '../src/index.js';
import { processBuffer } from '../src/runtime/loop/buffered-messages.js';
import { copyId } from '../src/runtime/parts/message-delivery.js';
import { chain, definitions, ext, flow, process } from './fixtures/bpmn/xml.js';
import { wrap } from './fixtures/repository.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const paid = `<bpmn:message id="m-paid" name="paid">${ext('<zeebe:subscription correlationKey="=orderId" />')}</bpmn:message>`;

/** Prepared by hand (a user task) before it waits for the payment at a receive task. */
const prepareThenReceive = definitions(
  `${paid}${process(`<bpmn:startEvent id="start" /><bpmn:userTask id="prepare" />
   <bpmn:receiveTask id="await" messageRef="m-paid" /><bpmn:endEvent id="end" />
   ${chain('start', 'prepare', 'await', 'end')}`)}`,
);

/** Prepared, then working while payments are noted by a non-interrupting boundary. */
const prepareThenNote = definitions(
  `${paid}${process(`<bpmn:startEvent id="start" /><bpmn:userTask id="prepare" /><bpmn:userTask id="work" />
   <bpmn:boundaryEvent id="paid-meanwhile" attachedToRef="work" cancelActivity="false"><bpmn:messageEventDefinition messageRef="m-paid" /></bpmn:boundaryEvent>
   <bpmn:endEvent id="noted" /><bpmn:endEvent id="end" />
   ${chain('start', 'prepare', 'work', 'end')}${flow('f9', 'paid-meanwhile', 'noted')}`)}`,
);

const receiveOnly = definitions(
  `${paid}${process(`<bpmn:startEvent id="start" /><bpmn:receiveTask id="await" messageRef="m-paid" /><bpmn:endEvent id="end" />
   ${chain('start', 'await', 'end')}`)}`,
);

async function engineOn(repository: Repository, clock: VirtualClock, xml = prepareThenReceive) {
  const engine = new Engine({ repository, clock: clock.view() });
  await engine.deploy(xml);
  return engine;
}

/** Complete the instance's open user task of `elementId`. */
async function complete(engine: Engine, instanceId: string, elementId = 'prepare'): Promise<void> {
  const [task] = await engine.userTasks({ instanceId, elementId });
  expect(task, `an open user task ${elementId}`).toBeDefined();
  await engine.completeUserTask(task!.id);
}

/** Process `p`'s copy of the publication `id` of `paid` with `key`, as the repository keeps it. */
function message(id: string, key: string) {
  const name = processBuffer('paid', 'p');
  return {
    id: copyId(id, 'paid', key, 'p'),
    name,
    correlationKey: key,
    variables: new Uint8Array(0),
    publishedAt: 0,
    expiresAt: HOUR,
  };
}

/** Whether anything is buffered for process `p` of `paid`/`key`, asked as a taker no instance is (held ones are not seen). */
async function buffered(repository: Repository, key: string, now: number): Promise<string | undefined> {
  return (await repository.takeMessage(processBuffer('paid', 'p'), key, now, 'probe'))?.id;
}

describe('messages buffered with a time-to-live', () => {
  it('should give a message sent before the instance waits to the instance when it arrives at its receive task', async () => {
    // given an instance still preparing, and a payment sent for it with an hour to live
    const clock = new VirtualClock();
    const repository = createMemoryRepository();
    const engine = await engineOn(repository, clock);
    const id = await engine.start('p', { variables: { orderId: 'A-1' } });
    await engine.settled(id);
    const sent = await engine.correlateMessage('paid', {
      correlationKey: 'A-1',
      variables: { amount: 120, note: 'früh' },
      timeToLive: HOUR,
      messageId: 'pay-1',
    });
    expect(sent).toEqual({ correlated: false, buffered: true, instanceId: null, instanceIds: [] });
    const correlated: EngineEvent[] = [];
    engine.on('message.correlated', (event) => correlated.push(event));

    // when it reaches the receive task within the hour
    clock.advance(59 * MINUTE);
    await complete(engine, id);

    // then it takes the buffered message, once, and the buffer is empty
    expect((await engine.settled(id)).status).toBe('completed');
    const view = await engine.instance(id);
    expect(view?.variables).toMatchObject({ amount: 120, note: 'früh' });
    expect(view?.received).toEqual(['pay-1']);
    expect(correlated).toMatchObject([{ elementId: 'await', name: 'paid', correlationKey: 'A-1' }]);
    expect(await buffered(repository, 'A-1', clock.now())).toBeUndefined();
  });

  it('should not give an expired message to an instance that arrives too late, and drop it on recover', async () => {
    // given a payment buffered for a minute
    const clock = new VirtualClock();
    const repository = createMemoryRepository();
    const engine = await engineOn(repository, clock);
    const id = await engine.start('p', { variables: { orderId: 'A-2' } });
    await engine.settled(id);
    await engine.correlateMessage('paid', {
      correlationKey: 'A-2',
      variables: { amount: 1 },
      timeToLive: MINUTE,
      messageId: 'late-1',
    });

    // when the instance reaches the receive task a minute later
    clock.advance(MINUTE);
    await complete(engine, id);

    // then it waits: the message expired
    const parked = await engine.settled(id);
    expect(parked.status === 'waiting' && parked.subscriptions).toMatchObject([{ elementId: 'await', name: 'paid' }]);
    expect((await engine.instance(id))?.variables).not.toHaveProperty('amount');
    await engine.close();

    // and a full recover deletes it from the store (until then its id is taken: putting it again is a no-op)
    const probe = { ...message('late-1', 'A-2'), publishedAt: 0, expiresAt: 1 };
    expect(await repository.putMessage(probe)).toBe(false);
    const next = await engineOn(repository, clock);
    await next.recover();
    expect(await repository.putMessage(probe)).toBe(true);
    expect(await repository.deleteMessage(probe.id)).toBe(true);

    // and a message sent now still reaches the waiting instance
    expect(await next.correlateMessage('paid', { correlationKey: 'A-2', variables: { amount: 2 } })).toEqual({
      correlated: true,
      instanceId: id,
      instanceIds: [id],
    });
    expect((await next.settled(id)).status).toBe('completed');
    expect((await next.instance(id))?.variables).toMatchObject({ amount: 2 });
  });

  it('should let exactly one of two instances that wait later take a buffered message', async () => {
    // given two instances for the same order, both still preparing, and one payment buffered
    const clock = new VirtualClock();
    const repository = createMemoryRepository();
    const engine = await engineOn(repository, clock);
    const first = await engine.start('p', { variables: { orderId: 'A-3' } });
    const second = await engine.start('p', { variables: { orderId: 'A-3' } });
    await Promise.all([engine.settled(first), engine.settled(second)]);
    await engine.correlateMessage('paid', { correlationKey: 'A-3', variables: { amount: 7 }, timeToLive: HOUR });

    // when both reach the receive task at once
    await Promise.all([complete(engine, first), complete(engine, second)]);
    const ends = await Promise.all([engine.settled(first), engine.settled(second)]);

    // then one completes with the payment and the other still waits
    expect(ends.map((end) => end.status).sort()).toEqual(['completed', 'waiting']);
    const waiting = ends.find((end) => end.status === 'waiting')!.instanceId;
    const taker = waiting === first ? second : first;
    expect((await engine.instance(taker))?.variables).toMatchObject({ amount: 7 });
    expect((await engine.instance(waiting))?.variables).not.toHaveProperty('amount');
    expect(await engine.correlateMessage('paid', { correlationKey: 'A-3' })).toEqual({
      correlated: true,
      instanceId: waiting,
      instanceIds: [waiting],
    });
  });

  it('should keep nothing with no time-to-live or a time-to-live of 0, as documented', async () => {
    const clock = new VirtualClock();
    const repository = createMemoryRepository();
    const engine = await engineOn(repository, clock);
    const id = await engine.start('p', { variables: { orderId: 'A-4' } });
    await engine.settled(id);

    const unbuffered = [
      await engine.correlateMessage('paid', { correlationKey: 'A-4', messageId: 'default' }),
      await engine.correlateMessage('paid', { correlationKey: 'A-4', messageId: 'zero', timeToLive: 0 }),
    ];

    expect(unbuffered).toEqual([
      { correlated: false, instanceId: null, instanceIds: [] },
      { correlated: false, instanceId: null, instanceIds: [] },
    ]);
    await complete(engine, id);
    expect((await engine.settled(id)).status).toBe('waiting');
    expect(await buffered(repository, 'A-4', clock.now())).toBeUndefined();
  });

  it('should refuse a time-to-live that is negative or not finite with a RangeError', async () => {
    const engine = await engineOn(createMemoryRepository(), new VirtualClock());
    for (const timeToLive of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(engine.correlateMessage('paid', { correlationKey: 'A-5', timeToLive })).rejects.toThrow(RangeError);
    }
  });

  it('should deliver a message already waited for directly, never buffering it', async () => {
    const clock = new VirtualClock();
    const repository = createMemoryRepository();
    const engine = await engineOn(repository, clock, receiveOnly);
    const id = await engine.start('p', { variables: { orderId: 'A-6' } });
    await engine.settled(id);

    expect(await engine.correlateMessage('paid', { correlationKey: 'A-6', timeToLive: HOUR })).toEqual({
      correlated: true,
      instanceId: id,
      instanceIds: [id],
    });
    expect(await buffered(repository, 'A-6', clock.now())).toBeUndefined();
  });

  it('should refuse a message sent again with the id of one still buffered, as Zeebe does, keeping one copy', async () => {
    const clock = new VirtualClock();
    const repository = createMemoryRepository();
    const engine = await engineOn(repository, clock, prepareThenNote);
    const id = await engine.start('p', { variables: { orderId: 'A-7' } });
    await engine.settled(id);
    const send = () => engine.correlateMessage('paid', { correlationKey: 'A-7', timeToLive: HOUR, messageId: 'pay-7' });
    expect(await send()).toEqual({ correlated: false, buffered: true, instanceId: null, instanceIds: [] });
    await expect(send()).rejects.toMatchObject({
      code: 'THRESHER_ALREADY_EXISTS',
      message: expect.stringContaining('pay-7'),
    });

    await complete(engine, id);
    await engine.settled(id);

    expect((await engine.instance(id))?.history.filter((entry) => entry.node === 'noted')).toHaveLength(1);
  });

  it('should let a non-interrupting boundary take every buffered message, oldest first', async () => {
    // given three payments buffered a minute apart while the instance prepares
    const clock = new VirtualClock();
    const repository = createMemoryRepository();
    const engine = await engineOn(repository, clock, prepareThenNote);
    const id = await engine.start('p', { variables: { orderId: 'A-8' } });
    await engine.settled(id);
    for (const part of [1, 2, 3]) {
      await engine.correlateMessage('paid', { correlationKey: 'A-8', variables: { part }, timeToLive: HOUR });
      clock.advance(MINUTE);
    }

    // when its work starts, arming the boundary
    await complete(engine, id);
    const parked = await engine.settled(id);

    // then the boundary took all three, in the order they were sent, and the work goes on
    expect(parked.status === 'waiting' && parked.userTasks.map((task) => task.elementId)).toEqual(['work']);
    const view = await engine.instance(id);
    expect(view?.history.filter((entry) => entry.node === 'noted')).toHaveLength(3);
    expect(view?.variables).toMatchObject({ part: 3 });
    expect(await buffered(repository, 'A-8', clock.now())).toBeUndefined();
  });

  it('should offer the buffer to an instance that subscribed while the message was being sent', async () => {
    // given an instance parked at the receive task by an engine that is gone, and an engine whose first look
    // for subscribers misses it (as if it subscribed just after that look)
    const clock = new VirtualClock();
    const repository = createMemoryRepository();
    const parker = await engineOn(repository, clock, receiveOnly);
    const id = await parker.start('p', { variables: { orderId: 'A-9' } });
    await parker.settled(id);
    await parker.close();
    let looks = 0;
    const racing = wrap(repository, {
      subscriptions: async (name, key) => (looks++ === 0 ? [] : repository.subscriptions(name, key)),
    });
    const sender = await engineOn(racing, clock, receiveOnly);

    // when a message with a time-to-live is sent
    const result = await sender.correlateMessage('paid', { correlationKey: 'A-9', timeToLive: HOUR, messageId: 'p-9' });

    // then the instance takes it from the buffer at once
    expect(result).toEqual({ correlated: true, instanceId: id, instanceIds: [id] });
    expect((await sender.settled(id)).status).toBe('completed');
    expect(await buffered(repository, 'A-9', clock.now())).toBeUndefined();
  });
});

describe('buffered messages across a kill', () => {
  /**
   * One run: a payment buffered while the instance prepares, then the instance reaches the receive task. A
   * kill switch dies right after write `killAt`; a new engine then recovers and drives the instance on.
   */
  async function run(killAt: number) {
    const clock = new VirtualClock();
    const repository = createMemoryRepository();
    const store = new KillSwitch(repository, killAt);
    const view = clock.view();
    const first = new Engine({ repository: store, clock: view });
    await first.deploy(prepareThenReceive);
    let id: string | undefined;
    const scenario = (async () => {
      id = await first.start('p', { variables: { orderId: 'K-1' } });
      await first.settled(id);
      await first.correlateMessage('paid', {
        correlationKey: 'K-1',
        variables: { amount: 99 },
        timeToLive: HOUR,
        messageId: 'pay-k',
      });
      const armedAfter = store.writes;
      await complete(first, id);
      await first.settled(id);
      return armedAfter;
    })();
    const outcome = await Promise.race([scenario, store.killed.then(() => 'killed' as const)]);
    if (outcome !== 'killed') return { outcome, writes: store.writes, engine: first, id: id!, repository, clock };

    view.dispose();
    clock.advance(MINUTE);
    const second = new Engine({ repository, clock: clock.view() });
    const report = await second.recover();
    expect(report.failed).toEqual([]);
    if ((await second.userTasks({ instanceId: id! })).length > 0) await complete(second, id!);
    await second.settled(id!);
    return { outcome, writes: store.writes, engine: second, id: id!, repository, clock };
  }

  it('should neither lose nor deliver twice a buffered message when killed at any write around its delivery', async () => {
    // the writes of an uninterrupted run: from the one arming the subscription to the end
    const baseline = await run(Number.POSITIVE_INFINITY);
    const armedAfter = baseline.outcome as number;
    // the step arming the subscription, the take, the delivering checkpoint, and the delete
    expect(baseline.writes - armedAfter).toBe(4);

    for (let killAt = armedAfter + 1; killAt <= baseline.writes; killAt++) {
      const { outcome, engine, id, repository, clock } = await run(killAt);
      expect(outcome, `killed at write ${killAt}`).toBe('killed');
      const view = await engine.instance(id);
      expect(view?.status, `status after a kill at write ${killAt}`).toBe('completed');
      expect(view?.variables).toMatchObject({ amount: 99 });
      expect(view?.received, `messages received after a kill at write ${killAt}`).toEqual(['pay-k']);
      expect(view?.history.filter((entry) => entry.node === 'await')).toHaveLength(1);
      // not free in the buffer: a later instance for the same order does not get it again
      const later = await engine.start('p', { variables: { orderId: 'K-1' } });
      await engine.settled(later);
      await complete(engine, later);
      expect((await engine.settled(later)).status, `a later instance after a kill at write ${killAt}`).toBe('waiting');
      // and gone once it expired and a recover ran (an instance that ended delivering it leaves it held until then)
      clock.advance(HOUR);
      await engine.recover();
      expect(await repository.putMessage(message('pay-k', 'K-1')), `pay-k stored after a kill at ${killAt}`).toBe(true);
      await engine.close();
    }
  });

  it('should give a message taken but not yet delivered before a kill back to its taker on recover', async () => {
    // given a kill right after the take (the write after the one arming the subscription)
    const baseline = await run(Number.POSITIVE_INFINITY);
    const killAt = (baseline.outcome as number) + 2;
    const clock = new VirtualClock();
    const repository = createMemoryRepository();
    const store = new KillSwitch(repository, killAt);
    const view = clock.view();
    const first = new Engine({ repository: store, clock: view });
    await first.deploy(prepareThenReceive);
    const id = await first.start('p', { variables: { orderId: 'K-1' } });
    await first.settled(id);
    await first.correlateMessage('paid', { correlationKey: 'K-1', variables: { amount: 99 }, timeToLive: HOUR });
    complete(first, id).catch(() => {});
    await store.killed;
    view.dispose();

    // then the message is held: no other taker sees it, and the store still says the instance waits
    expect(await buffered(repository, 'K-1', clock.now())).toBeUndefined();
    expect((await repository.instances())[0]?.subscriptions).toEqual([{ name: 'message:paid', key: 'K-1' }]);

    // when a new engine recovers, even after the message's time-to-live has passed
    clock.advance(2 * HOUR);
    const second = new Engine({ repository, clock: clock.view() });
    await second.recover();

    // then the instance takes it back and completes, and nothing is left
    expect((await second.settled(id)).status).toBe('completed');
    expect((await second.instance(id))?.variables).toMatchObject({ amount: 99 });
    expect(await repository.takeMessage('paid', 'K-1', 0, id)).toBeUndefined();
  });
});
