import { createMemoryRepository, type Repository } from '@thresher/checkpoint';
import { simulateCrash, VirtualClock } from '@thresher/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../src/engine.js';
import type { EngineEvent, Handlers } from '../src/index.js';
import { bpmn, chain, definitions, ext, flow, process } from './fixtures/bpmn/xml.js';

type Updated = Extract<EngineEvent, { type: 'touchpoint.updated' }>;

const paid = `<bpmn:message id="m-paid" name="paid">${ext('<zeebe:subscription correlationKey="=orderId" />')}</bpmn:message>`;
const job = (id: string, type: string, retries = 3) =>
  `<bpmn:sendTask id="${id}">${ext(`<zeebe:taskDefinition type="${type}" retries="${retries}" />`)}</bpmn:sendTask>`;

const engines: Engine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.close()));
});

function run(xml: string, handlers: Handlers = {}, repository: Repository = createMemoryRepository()) {
  const clock = new VirtualClock();
  const engine = new Engine({ repository, handlers, clock: clock.view(), backoff: () => 1000 });
  engines.push(engine);
  const events: EngineEvent[] = [];
  engine.on('*', (event) => events.push(event));
  const updates = (elementId?: string) =>
    events.filter(
      (event): event is Updated =>
        event.type === 'touchpoint.updated' && (elementId === undefined || event.touchpoint.elementId === elementId),
    );
  const states = (elementId: string) => updates(elementId).map((event) => event.touchpoint.state);
  return { engine, clock, events, updates, states, repository, deployed: engine.deploy(xml) };
}

const approval = bpmn(`<bpmn:startEvent id="start" /><bpmn:userTask id="approve" name="Approve the order" />
  <bpmn:exclusiveGateway id="ok" default="f-no" /><bpmn:manualTask id="ship" name="Ship it" /><bpmn:userTask id="explain" name="Explain" />
  <bpmn:endEvent id="end" /><bpmn:endEvent id="end2" />
  ${chain('start', 'approve', 'ok')}${flow('f-yes', 'ok', 'ship', '=approved = true')}${flow('f-no', 'ok', 'explain')}
  ${chain('ship', 'end')}${flow('f-e', 'explain', 'end2')}`);

describe('live touchpoints', () => {
  it('should publish the plan once, after the instance starts and before its first element, every touchpoint ahead', async () => {
    // given a process with three touchpoints
    const { engine, events, deployed } = run(approval);
    await deployed;

    // when an instance starts
    const id = await engine.start('p');
    await engine.settled(id);

    // then touchpoints.planned follows instance.started and comes before the first track entered
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type === 'touchpoints.planned')).toHaveLength(1);
    expect(types.indexOf('touchpoints.planned')).toBe(types.indexOf('instance.started') + 1);
    expect(types.indexOf('touchpoints.planned')).toBeLessThan(types.indexOf('track.entered'));
    const planned = events.find((event) => event.type === 'touchpoints.planned');
    expect(planned?.type === 'touchpoints.planned' && planned.touchpoints.map((t) => [t.elementId, t.state])).toEqual([
      ['approve', 'ahead'],
      ['ship', 'ahead'],
      ['explain', 'ahead'],
    ]);
  });

  it('should ask a user task when it is created, answer it when completed and clear it when it leaves', async () => {
    // given an instance waiting at its user task for ten seconds
    const { engine, clock, updates, deployed } = run(approval);
    await deployed;
    const id = await engine.start('p');
    const waiting = await engine.settled(id);
    clock.advance(10_000);

    // when the task is completed
    if (waiting.status !== 'waiting') throw new Error('expected a user task');
    await engine.completeUserTask(waiting.userTasks[0]!.id, { approved: true });
    await engine.settled(id);

    // then the touchpoint went now → now (answered) → cleared, with its causes, and its response time
    const seen = updates('approve').map((event) => [event.touchpoint.state, event.cause, event.revision]);
    expect(seen).toEqual([
      ['now', 'userTask.created', 1],
      ['now', 'userTask.completed', 2],
      ['cleared', 'track.left', 3],
    ]);
    const last = updates('approve').at(-1)!.touchpoint;
    expect(last).toMatchObject({ attempts: 1, pauses: 0, responseS: 10 });
  });

  it('should mark the branch not taken skipped the moment the gateway decides, with no cause', async () => {
    // given an instance at the approval
    const { engine, events, updates, deployed } = run(approval);
    await deployed;
    const id = await engine.start('p');
    const waiting = await engine.settled(id);
    if (waiting.status !== 'waiting') throw new Error('expected a user task');

    // when it is approved
    await engine.completeUserTask(waiting.userTasks[0]!.id, { approved: true });
    await engine.settled(id);

    // then "explain" was skipped before "ship" was entered, and "ship" (a manual task) was asked and cleared
    const skipped = updates('explain').find((event) => event.touchpoint.state === 'skipped')!;
    expect(skipped.cause).toBeNull();
    const shipEntered = events.findIndex((event) => event.type === 'track.entered' && event.elementId === 'ship');
    expect(events.indexOf(skipped)).toBeLessThan(shipEntered);
    expect(updates('ship').map((event) => event.touchpoint.state)).toEqual(['now', 'now', 'cleared']);
  });

  it('should turn whatever is ahead or open into not_reached when the instance ends, and when it is cancelled', async () => {
    // given an instance at its approval, cancelled there
    const { engine, updates, deployed } = run(approval);
    await deployed;
    const id = await engine.start('p');
    await engine.settled(id);

    // when it is cancelled
    await engine.cancel(id);
    await engine.settled(id);

    // then every touchpoint is not_reached, and nothing further was asked
    const final = new Map(updates().map((event) => [event.touchpoint.elementId, event.touchpoint.state]));
    expect(Object.fromEntries(final)).toEqual({ approve: 'not_reached', ship: 'not_reached', explain: 'not_reached' });
    expect(updates('ship').some((event) => event.touchpoint.state === 'now')).toBe(false);
  });

  it('should time out a receive task whose own boundary timer fires before the message comes', async () => {
    // given a receive task guarded by a one-minute boundary timer
    const xml = definitions(
      `${paid}${process(`<bpmn:startEvent id="start" /><bpmn:receiveTask id="await" messageRef="m-paid" />
      <bpmn:boundaryEvent id="late" attachedToRef="await"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1M</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
      <bpmn:endEvent id="end" /><bpmn:endEvent id="gave-up" />${chain('start', 'await', 'end')}${flow('f-late', 'late', 'gave-up')}`)}`,
    );
    const { engine, clock, states, updates, deployed } = run(xml);
    await deployed;
    const id = await engine.start('p', { variables: { orderId: 'A-1' } });
    await engine.settled(id);

    // when the minute passes
    clock.advance(60_000);
    await engine.settled(id);

    // then the touchpoint timed out, caused by the timer
    expect(states('await')).toEqual(['now', 'timed_out']);
    expect(updates('await').at(-1)!.cause).toBe('timer.fired');
  });

  it('should count a retried job as a new attempt: now, failed, now, cleared', async () => {
    // given a send task whose handler fails once
    let calls = 0;
    const handlers: Handlers = {
      notify: () => {
        calls++;
        if (calls === 1) throw new Error('not ready');
        return {};
      },
    };
    const { engine, clock, states, updates, deployed } = run(around(job('x', 'notify')), handlers);
    await deployed;
    const id = await engine.start('p');

    // when the retry runs after its backoff
    let state = await engine.settled(id);
    while (state.status === 'waiting' && state.retries.length > 0) {
      clock.advanceTo(state.retries[0]!.dueAt);
      state = await engine.settled(id);
    }

    // then each attempt shows
    expect(states('x')).toEqual(['now', 'failed', 'now', 'now', 'cleared']);
    expect(updates('x').at(-1)!.touchpoint.attempts).toBe(2);
  });

  it('should pause a question on an incident and resume the same attempt, the paused time not counted', async () => {
    // given a send task with no retries whose handler fails the first time
    let calls = 0;
    const handlers: Handlers = {
      notify: () => {
        calls++;
        if (calls === 1) throw new Error('down');
        return {};
      },
    };
    const { engine, clock, updates, deployed } = run(around(job('x', 'notify', 1)), handlers);
    await deployed;
    const id = await engine.start('p');
    const stuck = await engine.settled(id);
    if (stuck.status !== 'waiting') throw new Error('expected an incident');

    // when the incident is retried an hour later
    clock.advance(3_600_000);
    await engine.retryIncident(stuck.incidents[0]!.id);
    await engine.settled(id);

    // then the question was paused and resumed, still attempt 1, and the hour is not in its response time
    const seen = updates('x').map((event) => [event.cause, event.touchpoint.state]);
    expect(seen).toContainEqual(['incident.raised', 'now']);
    expect(seen).toContainEqual(['incident.resolved', 'now']);
    const last = updates('x').at(-1)!.touchpoint;
    expect(last).toMatchObject({ state: 'cleared', attempts: 1, pauses: 1, responseS: 0 });
  });

  it('should count each pass of a loop as a new attempt, every update with an id of its own', async () => {
    // given a user task in a standard loop of three passes
    const xml =
      bpmn(`<bpmn:startEvent id="start" /><bpmn:userTask id="review"><bpmn:standardLoopCharacteristics loopMaximum="3" /></bpmn:userTask>
      <bpmn:endEvent id="end" />${chain('start', 'review', 'end')}`);
    const { engine, events, updates, deployed } = run(xml);
    await deployed;
    const id = await engine.start('p');

    // when every pass is completed
    for (let state = await engine.settled(id); state.status === 'waiting'; state = await engine.settled(id)) {
      await engine.completeUserTask(state.userTasks[0]!.id, {});
    }

    // then three attempts were asked and every event id is unique
    expect(updates('review').at(-1)!.touchpoint).toMatchObject({ state: 'cleared', attempts: 3 });
    const ids = events.map((event) => event.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('should skip the catch events that lost an event-based gateway, and time them out when its timer won', async () => {
    // given a gateway waiting on a message and a five-minute timer
    const xml = definitions(
      `${paid}${process(`<bpmn:startEvent id="start" /><bpmn:eventBasedGateway id="gw" />
      <bpmn:intermediateCatchEvent id="got-paid"><bpmn:messageEventDefinition messageRef="m-paid" /></bpmn:intermediateCatchEvent>
      <bpmn:intermediateCatchEvent id="too-late"><bpmn:timerEventDefinition><bpmn:timeDuration>PT5M</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
      <bpmn:endEvent id="end" /><bpmn:endEvent id="end2" />
      ${chain('start', 'gw', 'got-paid', 'end')}${flow('f-t', 'gw', 'too-late')}${flow('f-t2', 'too-late', 'end2')}`)}`,
    );
    const first = run(xml);
    await first.deployed;
    const paidId = await first.engine.start('p', { variables: { orderId: 'A' } });
    const lateId = await first.engine.start('p', { variables: { orderId: 'B' } });
    await first.engine.settled(paidId);
    await first.engine.settled(lateId);

    // when A's message comes, and B's five minutes pass
    await first.engine.correlateMessage('paid', { correlationKey: 'A' });
    await first.engine.settled(paidId);
    first.clock.advance(300_000);
    await first.engine.settled(lateId);

    // then A's wait was answered and cleared; B's timed out
    const of = (instanceId: string) =>
      first
        .updates('got-paid')
        .filter((event) => event.instanceId === instanceId)
        .map((event) => event.touchpoint.state);
    expect(of(paidId)).toEqual(['now', 'now', 'cleared']);
    expect(of(lateId)).toEqual(['now', 'timed_out']);
  });

  it('should keep the touchpoints across a kill: after recovery they go on from their state', async () => {
    // given an instance asked at its approval, whose engine dies
    const repository = createMemoryRepository();
    const before = run(approval, {}, repository);
    await before.deployed;
    const id = await before.engine.start('p');
    await before.engine.settled(id);
    simulateCrash(before.engine);
    engines.splice(engines.indexOf(before.engine), 1);

    // when another engine recovers it and the task is completed
    const after = run(approval, {}, repository);
    await after.deployed;
    await after.engine.recover();
    const view = await after.engine.instance(id);
    const waiting = await after.engine.settled(id);
    if (waiting.status !== 'waiting') throw new Error('expected a user task');
    await after.engine.completeUserTask(waiting.userTasks[0]!.id, { approved: false });
    await after.engine.settled(id);

    // then the restored state was "now" at revision 1, and the updates continue from there; the dead engine's
    // last step is published again first (it may not have left), each event as it was
    expect(view?.touchpoints?.[0]).toMatchObject({ elementId: 'approve', state: 'now', attempts: 1, revision: 1 });
    expect(after.updates('approve').map((event) => [event.revision, event.touchpoint.state])).toEqual([
      [1, 'now'],
      [2, 'now'],
      [3, 'cleared'],
    ]);
    const again = after.events.filter((event) => before.events.some((first) => first.id === event.id));
    expect(again.map((event) => event.type)).toContain('touchpoints.planned');
    for (const event of again) expect(event).toEqual(before.events.find((first) => first.id === event.id));
    expect(after.states('explain')).toEqual(['now']);
  });
});

function around(element: string): string {
  return bpmn(`<bpmn:startEvent id="start" />${element}<bpmn:endEvent id="end" />${chain('start', 'x', 'end')}`);
}
