/**
 * No instance may hold the engine, whatever its model (issue 37): a run that has not waited yields to other
 * work every thousand element moves (durably, at a persist point of its own), and one that goes past the
 * engine's `stepLimit` without waiting stops with a `step-limit` incident, which `retryIncident` continues.
 */
import { createMemoryRepository } from '@thresher/checkpoint';
import { describe, expect, it } from 'vitest';
import { Engine } from '../src/engine.js';
import type { EngineEvent } from '../src/index.js';
import { openStored } from '../src/runtime/document/capture.js';
import { bpmn, definitions, ext, flow, process } from './fixtures/bpmn/xml.js';

/** `count` adds one to `i` and loops back while `i` is under `until` (`=true`: for ever). */
function counting(id: string, until: string): string {
  return `<bpmn:startEvent id="start" />
    <bpmn:scriptTask id="count">${ext('<zeebe:script expression="=i + 1" resultVariable="i" />')}</bpmn:scriptTask>
    <bpmn:exclusiveGateway id="more" default="done" /><bpmn:endEvent id="end" />
    ${flow('f1', 'start', 'count')}${flow('f2', 'count', 'more')}
    ${flow('again', 'more', 'count', `=${until}`)}${flow('done', 'more', 'end')}`
    .replaceAll('id="', `id="${id}-`)
    .replace(/(sourceRef|targetRef|default)="/g, `$1="${id}-`);
}

const forever = definitions(process(counting('spin', 'true'), 'spin'), 'spin-defs');
const simple = bpmn(
  `<bpmn:startEvent id="start" /><bpmn:serviceTask id="work">${ext('<zeebe:taskDefinition type="work" />')}</bpmn:serviceTask><bpmn:endEvent id="end" />${flow('f1', 'start', 'work')}${flow('f2', 'work', 'end')}`,
);

describe('a run that never waits', () => {
  it('should yield to a second instance, which completes while the first still runs, then stop at the step limit', async () => {
    // given an engine running an instance that loops without waiting
    const engine = new Engine({
      repository: createMemoryRepository(),
      stepLimit: 20_000,
      handlers: { work: () => ({}) },
    });
    await engine.deploy(forever);
    await engine.deploy(simple);
    const seen: EngineEvent[] = [];
    engine.on('*', (event) => {
      if (event.type === 'instance.completed' || event.type === 'incident.raised') seen.push(event);
    });
    const spinning = await engine.start('spin', { variables: { i: 0 } });

    // when a second instance starts beside it
    const second = await engine.start('p');

    // then the second completes first, and the first stops at the limit with an incident on its track
    expect((await engine.settled(second)).status).toBe('completed');
    const stopped = await engine.settled(spinning);
    // (one track loops: it stops wherever the limit finds it, at the script or the gateway)
    expect(stopped.status === 'waiting' && stopped.incidents.map((i) => i.kind)).toEqual(['step-limit']);
    expect(seen.map((event) => [event.type, event.instanceId])).toEqual([
      ['instance.completed', second],
      ['incident.raised', spinning],
    ]);
    expect(stopped.status === 'waiting' && stopped.incidents[0]?.message).toMatch(
      /20000 element moves without waiting/,
    );
    await engine.close();
  });

  it('should let a retried step-limit incident run on from where it stopped, to the end', async () => {
    // given a loop that ends after 4,000 passes (four moves each) and a limit of 10,000 moves
    const repository = createMemoryRepository();
    const engine = new Engine({ repository, stepLimit: 10_000 });
    await engine.deploy(definitions(process(counting('c', 'i &lt; 4000'), 'c'), 'c-defs'));
    const id = await engine.start('c', { variables: { i: 0 } });
    const stopped = await engine.settled(id);
    if (stopped.status !== 'waiting') throw new Error('expected the run to stop at the limit');
    const [incident] = stopped.incidents;
    const reached = (await engine.instance(id))!.variables.i as number;
    expect(reached).toBe(2500);

    // when the incident is retried
    await engine.retryIncident(incident!.id);

    // then the run goes on from that pass and completes, no pass counted twice
    expect((await engine.settled(id)).status).toBe('completed');
    const instance = (await engine.instance(id))!;
    expect(instance.variables.i).toBe(4000);
    expect(instance.history.filter((entry) => entry.node === 'c-count')).toHaveLength(4000);
    await engine.close();
  });

  it('should write the run it yielded, with its tracks to move and its moves so far (kills there: the fixture)', async () => {
    // given a run of 1,500 passes, which yields every thousand moves
    const repository = createMemoryRepository();
    const engine = new Engine({ repository });
    await engine.deploy(definitions(process(counting('r', 'i &lt; 1500'), 'r'), 'r-defs'));
    const id = await engine.start('r', { variables: { i: 0 } });

    // when it has completed
    expect((await engine.settled(id)).status).toBe('completed');

    // then each yield was a checkpoint holding the run's tracks still to move, and each pass ran once
    const yields = [];
    for (const stored of await repository.list(id)) {
      const { drain } = openStored(stored).instance;
      if (drain) yields.push(drain);
    }
    expect(yields.map((drain) => drain.moves)).toEqual([1000, 2000, 3000, 4000, 5000, 6000]);
    expect(yields.every((drain) => drain.agenda.length > 0)).toBe(true);
    const instance = (await engine.instance(id))!;
    expect(instance.variables.i).toBe(1500);
    expect(instance.history.filter((entry) => entry.node === 'r-count')).toHaveLength(1500);
    await engine.close();
  });

  it('should refuse a step limit that is not a positive integer', () => {
    for (const stepLimit of [0, -1, 1.5, Number.NaN]) {
      expect(() => new Engine({ repository: createMemoryRepository(), stepLimit })).toThrow(/stepLimit must be/);
    }
  });
});
