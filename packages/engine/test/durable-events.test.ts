import { createMemoryRepository, type Repository } from '@thresher/checkpoint';
import { KillSwitch, VirtualClock } from '@thresher/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Engine } from '../src/engine.js';
import type { EngineEvent, Handlers } from '../src/index.js';
import { bpmn, chain, ext } from './fixtures/bpmn/xml.js';

// Every run starts the same instance id, so the ids derived from it (jobs' step identities) match across runs.
vi.mock('../src/runtime/base/instance-ids.js', () => ({ newInstanceId: () => '0193a000-0000-7000-8000-000000000001' }));

/** start → `a` → split → (`b` ∥ user task `u`) → join → a sub-process around `c` → end. */
const model = bpmn(`<bpmn:startEvent id="start" />
  <bpmn:serviceTask id="a">${ext('<zeebe:taskDefinition type="a" />')}</bpmn:serviceTask>
  <bpmn:parallelGateway id="split" />
  <bpmn:serviceTask id="b">${ext('<zeebe:taskDefinition type="b" />')}</bpmn:serviceTask>
  <bpmn:userTask id="u" />
  <bpmn:parallelGateway id="join" />
  <bpmn:subProcess id="sub">
    <bpmn:startEvent id="subStart" />
    <bpmn:serviceTask id="c">${ext('<zeebe:taskDefinition type="c" />')}</bpmn:serviceTask>
    <bpmn:endEvent id="subEnd" />
    ${chain('subStart', 'c', 'subEnd')}
  </bpmn:subProcess>
  <bpmn:endEvent id="end" />
  ${chain('start', 'a', 'split', 'b', 'join', 'sub', 'end')}${chain('split', 'u', 'join')}`);

const handlers: Handlers = { a: () => ({ x: 1 }), b: () => ({ y: 2 }), c: () => ({ z: 3 }) };

const opened: Engine[] = [];
afterEach(async () => {
  for (const engine of opened.splice(0)) await engine.close().catch(() => {});
});

/** An engine recording every event it publishes, its instance ids made one placeholder (runs differ in ids). */
function recording(repository: Repository, clock: VirtualClock): { engine: Engine; events: EngineEvent[] } {
  const engine = new Engine({ repository, handlers, backoff: () => 0, clock: clock.view() });
  const events: EngineEvent[] = [];
  engine.on('*', (event) => events.push(event));
  return { engine, events };
}

/** Run the instance to its end: complete `u` whenever it waits there. */
async function drive(engine: Engine, instanceId: string): Promise<void> {
  for (;;) {
    const state = await engine.settled(instanceId);
    if (state.status !== 'waiting') return;
    const task = state.userTasks[0];
    if (task === undefined) throw new Error(`waiting on something else: ${JSON.stringify(state)}`);
    await engine.completeUserTask(task.id, { ok: true });
  }
}

/** The event with the run's instance id replaced, so two runs compare. */
function normal(event: EngineEvent, instanceId: string): unknown {
  return JSON.parse(JSON.stringify(event).replaceAll(instanceId, '$instance'));
}

/** The uninterrupted run: its events, and how many persist points it made. */
async function reference(): Promise<{ events: unknown[]; writes: number }> {
  const store = new KillSwitch(createMemoryRepository());
  const { engine, events } = recording(store, new VirtualClock());
  opened.push(engine);
  await engine.deploy(model);
  const id = await engine.start('p');
  await drive(engine, id);
  return { events: events.map((event) => normal(event, id)), writes: store.writes };
}

/** One instance run to its end on a memory store by an engine recording what it published. */
async function ranToItsEnd(): Promise<{ repository: Repository; engine: Engine; events: EngineEvent[]; id: string }> {
  const repository = createMemoryRepository();
  const { engine, events } = recording(repository, new VirtualClock());
  opened.push(engine);
  await engine.deploy(model);
  const id = await engine.start('p');
  await drive(engine, id);
  return { repository, engine, events, id };
}

describe('events at least once, across kills', () => {
  it('should publish, at every persist point a kill lands on, every event of the uninterrupted run at least once, with its id and payload', async () => {
    const uninterrupted = await reference();
    expect(uninterrupted.writes).toBeGreaterThanOrEqual(5);
    // What the instance did; not how the run cut it into writes (`checkpoint.saved`) or restored it.
    const expected = uninterrupted.events.filter(
      (event) => !['instance.restored', 'checkpoint.saved'].includes((event as EngineEvent).type),
    );

    // A killed run may cut its steps otherwise (a result journaled or not), so kill a few points past the end too.
    for (let killAt = 1; killAt <= uninterrupted.writes + 3; killAt++) {
      // given a run killed right after its killAt-th write landed
      const repository = createMemoryRepository();
      const store = new KillSwitch(repository, killAt);
      const clock = new VirtualClock();
      const first = recording(store, clock);
      await first.engine.deploy(model);
      const run = first.engine.start('p').then((id) => drive(first.engine, id));
      await Promise.race([store.killed, run]);
      // A kill at a deployment's write leaves no instance: start again on the next engine then.
      const [stored] = await repository.instances();

      // when another engine recovers it and runs it to its end
      const second = recording(repository, clock);
      opened.push(second.engine);
      await second.engine.deploy(model);
      await second.engine.recover();
      const id = stored?.instanceId ?? (await second.engine.start('p'));
      await drive(second.engine, id);

      // then every event of the uninterrupted run was published, the same each time it was
      const seen = [...first.events, ...second.events].map((event) => normal(event, id));
      const byId = new Map<string, unknown>();
      for (const event of seen) {
        const eventId = (event as EngineEvent).id;
        if ((event as EngineEvent).type !== 'instance.restored') {
          expect(event, `killed at ${killAt}: ${eventId} published twice, differently`).toEqual(
            byId.get(eventId) ?? event,
          );
        }
        byId.set(eventId, event);
      }
      for (const event of expected) {
        const eventId = (event as EngineEvent).id;
        expect(byId.get(eventId), `killed at ${killAt}: ${eventId} was never published`).toEqual(event);
      }
    }
  });

  it('should read the events back from the store in order, and read on from a position', async () => {
    const { engine, events } = await ranToItsEnd();

    const logged = await engine.events();
    expect(logged.map(({ event }) => event)).toEqual(events);
    const [, , third] = await engine.events({ limit: 3 });
    const rest = await engine.events({ after: third!.position, limit: 1000 });
    expect(rest.map(({ event }) => event)).toEqual(events.slice(3));
    expect(await engine.events({ after: logged.at(-1)!.position })).toEqual([]);
    expect(await engine.events({ instanceId: 'another' })).toEqual([]);
    await expect(engine.events({ after: 'nonsense' })).rejects.toMatchObject({ code: 'THRESHER_INVALID_ARGUMENT' });
    await expect(engine.events({ limit: 0 })).rejects.toMatchObject({ code: 'THRESHER_INVALID_ARGUMENT' });
  });

  it('should keep touchpoint events without what the plan gives back, and publish them whole, read back by an engine that never deployed the model too', async () => {
    // given an instance run to its end, its events recorded as published
    const { repository, engine, events, id } = await ranToItsEnd();

    // then its log keeps the plan out of its touchpoint events
    const kept = (await repository.history({ instanceId: id })).flatMap(
      ({ bytes }) => (JSON.parse(new TextDecoder().decode(bytes)) as { events?: unknown[] }).events ?? [],
    );
    const keptOf = (type: string) =>
      kept.filter((event): event is Record<string, unknown> => (event as { type?: string }).type === type);
    expect(keptOf('touchpoints.planned')).toEqual([{ id: ':touchpoints.planned', type: 'touchpoints.planned' }]);
    expect(keptOf('touchpoint.updated').length).toBeGreaterThan(1);
    for (const event of keptOf('touchpoint.updated')) {
      expect(event).not.toHaveProperty('touchpoint');
      expect(Object.keys(event.progress as object).sort()).toEqual(
        ['answeredAt', 'askedAt', 'attempts', 'pauses', 'responseS', 'revision', 'state'].sort(),
      );
    }
    // and published them whole: the plan's entry with the progress
    const updated = events.filter((event) => event.type === 'touchpoint.updated');
    expect(updated.map((event) => event.touchpoint)).toContainEqual(
      expect.objectContaining({ elementId: 'u', elementType: 'userTask', position: '/u', state: 'now' }),
    );
    const planned = events.find((event) => event.type === 'touchpoints.planned');
    expect(planned?.touchpoints).toEqual(await engine.plannedTouchpoints('p'));

    // when an engine that never deployed the model reads them back from the store, then they are the same
    const reader = new Engine({ repository });
    opened.push(reader);
    expect((await reader.events()).map(({ event }) => event)).toEqual(events);
  });
});
