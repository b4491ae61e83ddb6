/**
 * A compensation sweep stops with its thrower (docs/design/compensation.md): cancelling the thrower — here by
 * cancelling the instance — terminates the handler that runs and drops the queue. The entries still queued
 * are not compensated, and none of them goes back to a ledger.
 */
import { createMemoryRepository } from '@thresher/checkpoint';
import { describe, expect, it } from 'vitest';
import { Engine } from '../src/engine.js';
import { openStored } from '../src/runtime/document/capture.js';
import { bpmn, chain } from './fixtures/bpmn/xml.js';

/** start → a → b → undo (compensate everything) → end; `a` and `b` are compensated by user tasks. */
const TWO_THEN_UNDO = bpmn(`<bpmn:startEvent id="start" />
  <bpmn:manualTask id="a" /><bpmn:manualTask id="b" />
  <bpmn:intermediateThrowEvent id="undo"><bpmn:compensateEventDefinition /></bpmn:intermediateThrowEvent>
  <bpmn:endEvent id="end" />
  ${chain('start', 'a', 'b', 'undo', 'end')}
  <bpmn:boundaryEvent id="on-a" attachedToRef="a"><bpmn:compensateEventDefinition /></bpmn:boundaryEvent>
  <bpmn:userTask id="undo-a" isForCompensation="true" />
  <bpmn:association id="as-a" sourceRef="on-a" targetRef="undo-a" />
  <bpmn:boundaryEvent id="on-b" attachedToRef="b"><bpmn:compensateEventDefinition /></bpmn:boundaryEvent>
  <bpmn:userTask id="undo-b" isForCompensation="true" />
  <bpmn:association id="as-b" sourceRef="on-b" targetRef="undo-b" />`);

describe('cancelling a compensation sweep', () => {
  it('should terminate the running handler and drop the queued entries, compensating none of them', async () => {
    // given a sweep running the newest entry's handler (undo-b), with a's entry queued behind it
    const repository = createMemoryRepository();
    const engine = new Engine({ repository });
    await engine.deploy(TWO_THEN_UNDO);
    const id = await engine.start('p');
    const waiting = await engine.settled(id);
    expect(waiting.status === 'waiting' && waiting.userTasks.map((task) => task.elementId)).toEqual(['undo-b']);
    const before = openStored((await repository.get(id))!);
    const thrower = [...before.tracks.values()].find((track) => track.sweep);
    expect(thrower?.sweep?.queue.map((entry) => entry.nodeId)).toEqual(['a']);

    // when the instance is cancelled mid-sweep
    await engine.cancel(id);

    // then it ends with neither handler completed, no sweep left, and a's entry in no ledger
    expect((await engine.settled(id)).status).toBe('terminated');
    const after = openStored((await repository.get(id))!);
    expect((await engine.instance(id))?.history.map((entry) => entry.node)).toEqual(['start', 'a', 'b']);
    expect([...after.tracks.values()].some((track) => track.sweep)).toBe(false);
    expect([...after.scopes.values()].flatMap((scope) => scope.ledger ?? [])).toEqual([]);
    expect(await engine.userTasks({ instanceId: id })).toEqual([]);
    await engine.close();
  });
});
