import { describe, expect, it } from 'vitest';
import { ModelError } from '../src/common/errors.js';
import { compileShared } from '../src/model/shared-models.js';
import { bpmn, chain } from './fixtures/bpmn/xml.js';

describe('compiled models shared across engines', () => {
  it('should compile one XML once per process and hand every caller the same frozen model', async () => {
    // given a model no test compiled before
    const xml = bpmn(`<bpmn:startEvent id="start" /><bpmn:endEvent id="shared-end" />${chain('start', 'shared-end')}`);

    // when it is compiled twice, as two engines restoring instances of it would
    const [first, second] = await Promise.all([compileShared(xml), compileShared(xml)]);

    // then both got the one model, which nobody can change
    expect(second).toBe(first);
    expect(Object.isFrozen(first.processes.get('p')?.nodes.get('shared-end'))).toBe(true);
  });

  it('should not keep a model that does not compile: each call is refused on its own', async () => {
    // given XML that is not a model
    const xml = '<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL">';

    // when it is compiled twice
    const first = compileShared(xml);
    await expect(first).rejects.toBeInstanceOf(ModelError);
    const second = compileShared(xml);

    // then the second call compiled again rather than reusing the refusal
    expect(second).not.toBe(first);
    await expect(second).rejects.toBeInstanceOf(ModelError);
  });
});
