/**
 * The history: every element that completed, in order, in the scope it completed in.
 */
import { describe, expect, it } from 'vitest';
import { chain, flow, message, messageDefinition, withRoots } from './fixtures/bpmn/xml.js';
import { engineWith } from './fixtures/runtime.js';

describe('history', () => {
  it('should record an event sub-process completing in its parent scope, after its own end event', async () => {
    const engine = await engineWith(
      withRoots(
        message('m', 'nudge', '=&quot;k&quot;'),
        `<bpmn:startEvent id="start" />
        <bpmn:userTask id="work" />
        <bpmn:endEvent id="end" />
        ${chain('start', 'work', 'end')}
        <bpmn:subProcess id="esp" triggeredByEvent="true">
          <bpmn:startEvent id="esp-start" isInterrupting="false">${messageDefinition('m')}</bpmn:startEvent>
          <bpmn:endEvent id="esp-end" />
          ${flow('f_esp', 'esp-start', 'esp-end')}
        </bpmn:subProcess>`,
      ),
    );
    const id = await engine.start('p');
    await engine.settled(id);

    await engine.correlateMessage('nudge', { correlationKey: 'k' });
    await engine.settled(id);

    const history = (await engine.instance(id))!.history;
    expect(history.map((entry) => `${entry.scope}|${entry.node}`)).toEqual([
      '/|start',
      '/esp|esp-start',
      '/esp|esp-end',
      '/|esp',
    ]);
    expect(history.at(-1)!.track).toBe('/esp');
  });
});
