import { describe, expect, it } from 'vitest';
import { activationScope } from '../src/index.js';
import { bpmn, chain, ext } from './fixtures/bpmn/xml.js';
import { engineWith } from './fixtures/runtime.js';

const MODEL = bpmn(`<bpmn:startEvent id="start" />
  <bpmn:subProcess id="sub">
    <bpmn:startEvent id="sub-start" />
    <bpmn:subProcess id="each">
      ${ext('')}
      <bpmn:multiInstanceLoopCharacteristics><bpmn:extensionElements><zeebe:loopCharacteristics inputCollection="=[1, 2]" inputElement="item" /></bpmn:extensionElements></bpmn:multiInstanceLoopCharacteristics>
      <bpmn:startEvent id="each-start" />
      <bpmn:userTask id="review" />
      ${chain('each-start', 'review')}
    </bpmn:subProcess>
    ${chain('sub-start', 'each')}
  </bpmn:subProcess>
  ${chain('start', 'sub')}`);

describe('activationScope', () => {
  it('should name the scope a container activation opens, as the instance names it: a sub-process, the bodies of a multi-instance one', async () => {
    const engine = await engineWith(MODEL);
    const id = await engine.start('p');
    await engine.settled(id);

    const view = (await engine.instance(id))!;
    const sub = view.elementInstances.find((one) => one.elementId === 'sub')!;
    const each = view.elementInstances.find((one) => one.elementId === 'each')!;
    const scopes = Object.keys(view.scopes);

    expect(scopes).toContain(activationScope(sub.id));
    expect(scopes).toEqual(
      expect.arrayContaining([`${activationScope(each.id)}[0]`, `${activationScope(each.id)}[1]`]),
    );
    expect(activationScope('/:sub:1')).toBe('/sub#2');
  });
});
