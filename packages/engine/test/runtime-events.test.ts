import { createMemoryRepository, type Repository } from '@thresher/checkpoint';
import { VirtualClock } from '@thresher/testing';
import { describe, expect, it } from 'vitest';
import { InvalidStateError } from '../src/common/errors.js';
import { Engine } from '../src/engine.js';
import type { EngineEvent } from '../src/index.js';
import { bpmn, chain, definitions, ext, flow, process } from './fixtures/bpmn/xml.js';

const messages = `<bpmn:message id="m-paid" name="paid">${ext('<zeebe:subscription correlationKey="=orderId" />')}</bpmn:message>
<bpmn:message id="m-order" name="order-placed" />
<bpmn:signal id="s-alarm" name="alarm" />`;

const receive = definitions(
  `${messages}${process(`<bpmn:startEvent id="start" /><bpmn:receiveTask id="await" messageRef="m-paid" /><bpmn:endEvent id="end" />${chain('start', 'await', 'end')}`)}`,
);

const timerWait = bpmn(`<bpmn:startEvent id="start" />
  <bpmn:intermediateCatchEvent id="wait"><bpmn:timerEventDefinition><bpmn:timeDuration xsi:type="bpmn:tFormalExpression">PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
  <bpmn:endEvent id="end" />${chain('start', 'wait', 'end')}`);

const eventStarted = definitions(
  `${messages}${process(
    `<bpmn:startEvent id="by-order"><bpmn:messageEventDefinition messageRef="m-order" /></bpmn:startEvent>
     <bpmn:startEvent id="by-alarm"><bpmn:signalEventDefinition signalRef="s-alarm" /></bpmn:startEvent>
     <bpmn:endEvent id="end" />${flow('f1', 'by-order', 'end')}${flow('f2', 'by-alarm', 'end')}`,
    'started',
  )}`,
);

const nonInterrupting = definitions(
  `${messages}${process(`<bpmn:startEvent id="start" /><bpmn:userTask id="work" />
   <bpmn:boundaryEvent id="paid-meanwhile" attachedToRef="work" cancelActivity="false"><bpmn:messageEventDefinition messageRef="m-paid" /></bpmn:boundaryEvent>
   <bpmn:endEvent id="noted" /><bpmn:endEvent id="end" />
   ${chain('start', 'work', 'end')}${flow('f9', 'paid-meanwhile', 'noted')}`)}`,
);

function engineOn(repository: Repository, clock?: VirtualClock) {
  return new Engine({ repository, ...(clock ? { clock: clock.view() } : {}) });
}

describe('messages and signals through the engine', () => {
  it('should deliver a message sent while the engine that parked the instance is gone, through the repository', async () => {
    // given an instance parked at a receive task by an engine that is now closed
    const repository = createMemoryRepository();
    const first = engineOn(repository);
    await first.deploy(receive);
    const id = await first.start('p', { variables: { orderId: 'A-7' } });
    expect((await first.settled(id)).status).toBe('waiting');
    await first.close();

    // when another engine (as `thresher send` does) correlates the message
    const second = engineOn(repository);
    const result = await second.correlateMessage('paid', { correlationKey: 'A-7', variables: { amount: 3 } });

    // then the stored instance takes it and completes
    expect(result).toEqual({ correlated: true, instanceId: id, instanceIds: [id] });
    expect((await second.settled(id)).status).toBe('completed');
    expect((await second.instance(id))?.variables).toMatchObject({ amount: 3 });
  });

  it('should report a message nobody waits for as not correlated, keeping nothing', async () => {
    const engine = engineOn(createMemoryRepository());
    await engine.deploy(receive);
    const id = await engine.start('p', { variables: { orderId: 'A-8' } });
    await engine.settled(id);
    expect(await engine.correlateMessage('paid', { correlationKey: 'other' })).toEqual({
      correlated: false,
      instanceId: null,
      instanceIds: [],
    });
    expect((await engine.settled(id)).status).toBe('waiting');
  });

  it('should take a message with the same id only once, even where the subscription stays', async () => {
    const engine = engineOn(createMemoryRepository());
    await engine.deploy(nonInterrupting);
    const id = await engine.start('p', { variables: { orderId: 'A-9' } });
    await engine.settled(id);
    const noted: EngineEvent[] = [];
    engine.on('message.correlated', (event) => noted.push(event));
    await engine.correlateMessage('paid', { correlationKey: 'A-9', messageId: 'pay-1' });
    await engine.correlateMessage('paid', { correlationKey: 'A-9', messageId: 'pay-1' });
    await engine.correlateMessage('paid', { correlationKey: 'A-9', messageId: 'pay-2' });
    await engine.settled(id);
    expect(noted).toHaveLength(2);
    expect((await engine.instance(id))?.history.filter((entry) => entry.node === 'noted')).toHaveLength(2);
  });

  it('should start instances by a message start event and by a signal start event', async () => {
    const engine = engineOn(createMemoryRepository());
    await engine.deploy(eventStarted);
    const byMessage = await engine.correlateMessage('order-placed', { variables: { item: 'lamp' } });
    expect(byMessage.correlated).toBe(true);
    const [byAlarm] = await engine.broadcastSignal('alarm', { variables: { level: 2 } });
    for (const id of [byMessage.instanceId!, byAlarm!]) expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(byMessage.instanceId!))?.history.map((e) => e.node)).toEqual(['by-order', 'end']);
    expect((await engine.instance(byAlarm!))?.variables).toEqual({ level: 2 });
  });

  it('should refuse start() of a process that only starts by events, naming them', async () => {
    const engine = engineOn(createMemoryRepository());
    await engine.deploy(eventStarted);
    await expect(engine.start('started')).rejects.toThrow(InvalidStateError);
    await expect(engine.start('started')).rejects.toThrow(/by-order, by-alarm/);
  });
});

describe('timers across a stop', () => {
  it('should fire a timer that fell due while no engine ran exactly once, right after recovery', async () => {
    // given an instance parked on a one-hour timer by an engine that is now closed
    const clock = new VirtualClock();
    const repository = createMemoryRepository();
    const first = engineOn(repository, clock);
    await first.deploy(timerWait);
    const id = await first.start('p');
    const parked = await first.settled(id);
    expect(parked.status === 'waiting' && parked.timers.map((t) => t.elementId)).toEqual(['wait']);
    await first.close();

    // when two hours pass with nothing running, and a new engine recovers
    clock.advance(2 * 3_600_000);
    const second = engineOn(repository, clock);
    const fired: EngineEvent[] = [];
    second.on('*', (event) => fired.push(event));
    await second.recover();
    clock.advance(0);

    // then the timer fires once and the instance completes
    expect((await second.settled(id, { timers: 'wait' })).status).toBe('completed');
    expect(fired.filter((event) => event.type === 'timer.fired')).toHaveLength(1);
  });
});

describe('timer start events', () => {
  const cycle = (interval: string, id = 'ticks') =>
    definitions(
      process(
        `<bpmn:startEvent id="tick"><bpmn:timerEventDefinition><bpmn:timeCycle xsi:type="bpmn:tFormalExpression">R3/${interval}</bpmn:timeCycle></bpmn:timerEventDefinition></bpmn:startEvent>
         <bpmn:endEvent id="end" />${flow('f1', 'tick', 'end')}`,
        'ticking',
      ),
      id,
    );
  const hour = 3_600_000;

  async function byStatus(engine: Engine) {
    const all = await engine.instances();
    return {
      running: all.filter((i) => i.status === 'running').length,
      completed: all.filter((i) => i.status === 'completed').length,
      terminated: all.filter((i) => i.status === 'terminated').length,
    };
  }

  /** The one occurrence waiting for its timer. */
  async function waitingOccurrence(engine: Engine): Promise<string> {
    const running = (await engine.instances()).filter((i) => i.status === 'running');
    expect(running).toHaveLength(1);
    return running[0]!.instanceId;
  }

  /**
   * Move the clock by `ms`, firing the waiting occurrence's timer; resolves once that occurrence completed
   * and has handed the cycle on (its next occurrence, if any, is created before its `settled` resolves).
   */
  async function fire(engine: Engine, clock: VirtualClock, ms: number): Promise<void> {
    const waiting = await waitingOccurrence(engine);
    clock.advance(ms);
    expect((await engine.settled(waiting)).status).toBe('completed');
  }

  it('should start one instance per occurrence of a cycle, each waiting for its own, and stop after the last', async () => {
    const clock = new VirtualClock();
    const repository = createMemoryRepository();
    const engine = engineOn(repository, clock);
    await engine.deploy(cycle('PT1H'));
    expect(await byStatus(engine)).toEqual({ running: 1, completed: 0, terminated: 0 });
    for (let n = 1; n <= 3; n++) {
      expect(clock.nextDue()).toBe(clock.now() + hour);
      await fire(engine, clock, hour);
      expect(await byStatus(engine)).toEqual({ running: n < 3 ? 1 : 0, completed: n, terminated: 0 });
    }
    // Nothing is armed on the clock or in the store any more: no later hour can start a fourth.
    expect(clock.nextDue()).toBeUndefined();
    expect(await repository.dueTimers(Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
    clock.advance(hour);
    expect(await byStatus(engine)).toEqual({ running: 0, completed: 3, terminated: 0 });
  });

  it('should not schedule a second first occurrence when the same model is deployed again', async () => {
    const engine = engineOn(createMemoryRepository(), new VirtualClock());
    await engine.deploy(cycle('PT1H'));
    await engine.deploy(cycle('PT1H'));
    expect(await byStatus(engine)).toEqual({ running: 1, completed: 0, terminated: 0 });
  });

  it('should hand the schedule to a new version: the old waiting occurrence is cancelled', async () => {
    const clock = new VirtualClock();
    const repository = createMemoryRepository();
    const engine = engineOn(repository, clock);
    await engine.deploy(cycle('PT1H'));
    await engine.deploy(cycle('PT2H'));
    expect(await byStatus(engine)).toEqual({ running: 1, completed: 0, terminated: 1 });
    // The old version's hour is armed nowhere: the first thing due is the new version's two hours, so the
    // first hour passes with nothing to fire.
    expect(clock.nextDue()).toBe(clock.now() + 2 * hour);
    expect((await repository.dueTimers(Number.MAX_SAFE_INTEGER, 10)).map((t) => t.dueAt)).toEqual([
      clock.now() + 2 * hour,
    ]);
    clock.advance(hour);
    expect(await byStatus(engine)).toEqual({ running: 1, completed: 0, terminated: 1 });
    await fire(engine, clock, hour);
    expect(await byStatus(engine)).toEqual({ running: 1, completed: 1, terminated: 1 });
  });

  it('should continue a cycle after a restart without repeating an occurrence', async () => {
    const clock = new VirtualClock();
    const repository = createMemoryRepository();
    const first = engineOn(repository, clock);
    await first.deploy(cycle('PT1H'));
    await fire(first, clock, hour);
    await first.close();
    const second = engineOn(repository, clock);
    await second.recover();
    await fire(second, clock, hour);
    await fire(second, clock, hour);
    expect(await byStatus(second)).toEqual({ running: 0, completed: 3, terminated: 0 });
  });
});

describe('timer dates', () => {
  it.each([
    ['a literal', '2026-01-01T05:00:00Z'],
    ['a FEEL date and time', '=date and time("2026-01-01T05:00:00Z")'],
  ])('should wait until a timeDate given as %s', async (_, body) => {
    const clock = new VirtualClock(Date.UTC(2026, 0, 1));
    const engine = engineOn(createMemoryRepository(), clock);
    await engine.deploy(
      bpmn(`<bpmn:startEvent id="start" />
        <bpmn:intermediateCatchEvent id="at-five"><bpmn:timerEventDefinition><bpmn:timeDate xsi:type="bpmn:tFormalExpression">${body}</bpmn:timeDate></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
        <bpmn:endEvent id="end" />${chain('start', 'at-five', 'end')}`),
    );
    const id = await engine.start('p');
    const parked = await engine.settled(id);
    expect(parked.status === 'waiting' && parked.timers).toEqual([
      { elementId: 'at-five', dueAt: Date.UTC(2026, 0, 1, 5) },
    ]);
    clock.advance(5 * 3_600_000 - 1);
    expect((await engine.settled(id)).status).toBe('waiting');
    clock.advance(1);
    expect((await engine.settled(id, { timers: 'wait' })).status).toBe('completed');
  });
});

describe('engine events', () => {
  it('should tell listeners added while an instance waits, by type and through "*", and no one after they leave', async () => {
    // given an instance parked while nobody listened
    const engine = engineOn(createMemoryRepository());
    await engine.deploy(receive);
    const first = await engine.start('p', { variables: { orderId: 'E-1' } });
    await engine.settled(first);

    // when listeners come, the instance completes, and they leave before another one runs to its end
    const completed: string[] = [];
    const all: string[] = [];
    const offCompleted = engine.on('instance.completed', (event) => completed.push(event.instanceId));
    const offAll = engine.on('*', (event) => all.push(event.type));
    await engine.correlateMessage('paid', { correlationKey: 'E-1' });
    await engine.settled(first);
    offCompleted();
    offAll();
    const second = await engine.start('p', { variables: { orderId: 'E-2' } });
    await engine.correlateMessage('paid', { correlationKey: 'E-2' });
    await engine.settled(second);

    // then each heard the first instance's end, and nothing of the second
    expect(completed).toEqual([first]);
    expect(all).toContain('instance.completed');
    expect(all).toContain('checkpoint.saved');
    expect(all.filter((type) => type === 'instance.completed')).toHaveLength(1);
  });
});
