/**
 * An instance never waits on something that nothing will bring: a throw event with no definition passes
 * straight through (no track is left `entering` off the agenda), and a sub-process cancelled by a boundary
 * event takes the timers and subscriptions of its own event sub-processes with it. Both were found while
 * the core was reshaped into element modules (issue 10); each test keeps its root cause.
 */
import { describe, expect, it } from 'vitest';
import { boundary, bpmn, chain, flow, message, messageDefinition, timer, withRoots } from './fixtures/bpmn/xml.js';
import { engineWith } from './fixtures/runtime.js';

describe('IntermediateThrowEvent', () => {
  // Root cause: the old core's element switch had no branch for a throw event without a definition, so the
  // track stayed `entering` off the agenda and the instance settled as "waiting" on nothing, forever.
  it('IntermediateThrowEvent#none should pass straight through', async () => {
    const engine = await engineWith(
      bpmn(`<bpmn:startEvent id="start" />
        <bpmn:intermediateThrowEvent id="x" />
        <bpmn:endEvent id="end" />
        ${chain('start', 'x', 'end')}`),
    );

    const id = await engine.start('p');

    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(id))!.history.map((entry) => entry.node)).toEqual(['start', 'x', 'end']);
  });
});

describe('SubProcess interrupted by a boundary event', () => {
  // Root cause: cancelling the track parked on a sub-process terminated its scope without dropping the waits
  // of that scope's own event sub-processes, so their timers outlived it (and were listed as waits).
  it('should drop the timers and subscriptions of its event sub-processes', async () => {
    const engine = await engineWith(
      withRoots(
        message('m', 'stop', '=&quot;k&quot;'),
        `<bpmn:startEvent id="start" />
        <bpmn:subProcess id="sub">
          <bpmn:startEvent id="sub-start" />
          <bpmn:userTask id="inner" />
          <bpmn:endEvent id="sub-end" />
          ${chain('sub-start', 'inner', 'sub-end')}
          <bpmn:subProcess id="esp" triggeredByEvent="true">
            <bpmn:startEvent id="esp-start" isInterrupting="false">${timer('timeDuration', 'PT1H')}</bpmn:startEvent>
            <bpmn:endEvent id="esp-end" />
            ${flow('f_esp', 'esp-start', 'esp-end')}
          </bpmn:subProcess>
        </bpmn:subProcess>
        ${boundary('stopped', 'sub', messageDefinition('m'))}
        <bpmn:userTask id="after" />
        <bpmn:endEvent id="end" />
        ${chain('start', 'sub', 'end')}
        ${chain('stopped', 'after')}`,
      ),
    );
    const id = await engine.start('p');
    const parked = await engine.settled(id);
    expect(parked.status === 'waiting' && parked.timers.map((t) => t.elementId)).toEqual(['esp-start']);

    await engine.correlateMessage('stop', { correlationKey: 'k' });

    const after = await engine.settled(id);
    expect(after.status === 'waiting' && after.userTasks.map((t) => t.elementId)).toEqual(['after']);
    expect(after.status === 'waiting' && after.timers).toEqual([]);
  });
});
