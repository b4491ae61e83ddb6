import { createMemoryRepository } from '@thresher/checkpoint';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../src/common/errors.js';
import { deploymentKind, Engine } from '../src/index.js';
import { around } from './fixtures/bpmn/xml.js';

const FORM = (id: string, label = 'Approve?') =>
  JSON.stringify({ id, type: 'default', components: [{ type: 'checkbox', key: 'approved', label }] });

function engine(): Engine {
  return new Engine({ repository: createMemoryRepository() });
}

describe('Camunda forms deployed with models', () => {
  it('should store a form under its id, the same file once and a changed one as the next version', async () => {
    const subject = engine();

    const [process, form] = await subject.deployTogether([around('<bpmn:userTask id="x" />'), FORM('review')]);
    const again = await subject.deploy(FORM('review'));
    const changed = await subject.deploy(FORM('review', 'Approve now?'));

    expect(process?.kind).toBe('bpmn');
    expect(form).toEqual({
      kind: 'form',
      definitionId: 'review',
      version: 1,
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      processes: [],
      decisions: [],
      warnings: [],
    });
    expect(again).toEqual(form);
    expect(changed.version).toBe(2);
    const forms = (await subject.deployments()).filter((deployment) => deploymentKind(deployment) === 'form');
    expect(forms.map((deployment) => [deployment.definitionId, deployment.version])).toEqual([
      ['form:review', 1],
      ['form:review', 2],
    ]);
    await subject.close();
  });

  it('should refuse a form file that is not one, naming the file, and deploy nothing of the set', async () => {
    const subject = engine();

    for (const bad of ['{ nope', '{"components": []}', '{"id": "f"}', '{"id": "f", "components": 1}']) {
      const error = await subject.deployTogether([around('<bpmn:userTask id="x" />'), bad]).catch((caught) => caught);
      expect(error).toBeInstanceOf(ModelError);
      expect((error as ModelError).fileIndex).toBe(1);
      expect((error as ModelError).message).toContain('a Camunda form file, but');
    }
    expect(await subject.deployments()).toEqual([]);
    await subject.close();
  });

  it('should let processes deployed after a form start as before', async () => {
    const subject = engine();
    await subject.deploy(FORM('review'));
    await subject.deploy(around('<bpmn:userTask id="x" />'));

    const id = await subject.start('p');

    expect((await subject.settled(id)).status).toBe('waiting');
    await subject.close();
  });
});
