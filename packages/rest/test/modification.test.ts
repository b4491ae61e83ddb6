import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Api, problemOf, serveApi } from './harness.js';
import { resources } from './models.js';

/** start → review (user task) → sub (check, a user task inside) → e. */
const REPAIRABLE = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="defs-repairable" targetNamespace="t">
  <bpmn:process id="repairable" isExecutable="true">
    <bpmn:startEvent id="s" />
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="review" />
    <bpmn:userTask id="review" />
    <bpmn:sequenceFlow id="f2" sourceRef="review" targetRef="sub" />
    <bpmn:subProcess id="sub">
      <bpmn:startEvent id="sub-s" />
      <bpmn:sequenceFlow id="f3" sourceRef="sub-s" targetRef="check" />
      <bpmn:userTask id="check" />
      <bpmn:sequenceFlow id="f4" sourceRef="check" targetRef="sub-e" />
      <bpmn:endEvent id="sub-e" />
    </bpmn:subProcess>
    <bpmn:sequenceFlow id="f5" sourceRef="sub" targetRef="e" />
    <bpmn:endEvent id="e" />
  </bpmn:process>
</bpmn:definitions>`;

let api: Api;
beforeEach(async () => {
  api = await serveApi();
});
afterEach(async () => {
  await api.close();
});

async function waitingAtReview(): Promise<string> {
  await fetch(`${api.server.url}/deployments`, { method: 'POST', body: resources({ 'r.bpmn': REPAIRABLE }) });
  const created = await api.call('POST', '/process-instances', { processDefinitionId: 'repairable' });
  return ((await created.json()) as { processInstanceKey: string }).processInstanceKey;
}

/** The active element instances of an instance, as a Camunda client finds them: element id → key. */
async function activeElements(instance: string): Promise<Record<string, string>> {
  await api.projection!.caughtUp();
  const found = await api.call('POST', '/element-instances/search', {
    filter: { processInstanceKey: instance, state: 'ACTIVE' },
  });
  const { items } = (await found.json()) as { items: { elementId: string; elementInstanceKey: string }[] };
  return Object.fromEntries(items.map((item) => [item.elementId, item.elementInstanceKey]));
}

describe('POST /process-instances/{processInstanceKey}/modification', () => {
  it('should move a token from an element instance to an element inside a sub-process, with its variables', async () => {
    const instance = await waitingAtReview();
    const { review } = await activeElements(instance);

    const modified = await api.call('POST', `/process-instances/${instance}/modification`, {
      terminateInstructions: [{ elementInstanceKey: review }],
      activateInstructions: [
        {
          elementId: 'check',
          ancestorElementInstanceKey: '-1',
          variableInstructions: [{ variables: { fixed: true } }, { scopeId: 'sub', variables: { inner: 1 } }],
        },
      ],
    });

    expect(modified.status).toBe(204);
    const active = await activeElements(instance);
    expect(Object.keys(active)).toEqual(expect.arrayContaining(['check', 'sub']));
    expect(active.review).toBeUndefined();
    const variables = (await api.call('POST', '/variables/search', { filter: { processInstanceKey: instance } }))
      .json()
      .then((body) => (body as { items: { name: string; value: string }[] }).items.map((v) => [v.name, v.value]));
    expect(await variables).toEqual(
      expect.arrayContaining([
        ['fixed', 'true'],
        ['inner', '1'],
      ]),
    );
    expect(api.failures).toEqual([]);
  });

  it('should refuse, with nothing changed, a key the instance has no active element instance of and an element Zeebe does not activate', async () => {
    const instance = await waitingAtReview();

    const unknownKey = await api.call('POST', `/process-instances/${instance}/modification`, {
      terminateInstructions: [{ elementInstanceKey: '123' }],
    });
    const startEvent = await api.call('POST', `/process-instances/${instance}/modification`, {
      activateInstructions: [{ elementId: 's' }],
    });
    const ended = await api.call('POST', '/process-instances/99999999999/modification', {
      activateInstructions: [{ elementId: 'review' }],
    });

    expect(unknownKey.status).toBe(400);
    expect((await problemOf(unknownKey)).detail).toContain(
      `$.terminateInstructions[0].elementInstanceKey: process instance ${instance} has no active element instance 123`,
    );
    expect(startEvent.status).toBe(400);
    expect((await problemOf(startEvent)).detail).toMatch(/cannot activate "s": a start event/);
    expect(ended.status).toBe(404);
    expect(Object.keys(await activeElements(instance))).toContain('review');
  });
});

describe('POST /process-instances/{processInstanceKey}/migration', () => {
  /** v2 of `repairable`: review is followed by `extra` before the sub-process. */
  const V2 = REPAIRABLE.replace(
    'targetRef="sub" />',
    'targetRef="extra" /><bpmn:userTask id="extra" /><bpmn:sequenceFlow id="f2b" sourceRef="extra" targetRef="sub" />',
  );

  async function deployed(xml: string): Promise<string> {
    const response = await fetch(`${api.server.url}/deployments`, {
      method: 'POST',
      body: resources({ 'r.bpmn': xml }),
    });
    const body = (await response.json()) as { deployments: { processDefinition: { processDefinitionKey: string } }[] };
    return body.deployments[0]!.processDefinition.processDefinitionKey;
  }

  it('should move the instance onto the target definition, its user task kept, and run it on there', async () => {
    const instance = await waitingAtReview();
    const v2 = await deployed(V2);

    const migrated = await api.call('POST', `/process-instances/${instance}/migration`, {
      targetProcessDefinitionKey: v2,
      mappingInstructions: [{ sourceElementId: 'review', targetElementId: 'review' }],
    });

    expect(migrated.status).toBe(204);
    const read = (await (await api.call('GET', `/process-instances/${instance}`)).json()) as {
      processDefinitionKey: string;
      processDefinitionVersion: number;
    };
    expect(read).toMatchObject({ processDefinitionKey: v2, processDefinitionVersion: 2 });
    expect(api.failures).toEqual([]);
  });

  it('should refuse an unmapped active element with a 400 naming it, and a definition key that names none with a 404', async () => {
    const instance = await waitingAtReview();
    const v2 = await deployed(V2);

    const unmapped = await api.call('POST', `/process-instances/${instance}/migration`, {
      targetProcessDefinitionKey: v2,
      mappingInstructions: [],
    });
    const nowhere = await api.call('POST', `/process-instances/${instance}/migration`, {
      targetProcessDefinitionKey: '4611686018427387905',
      mappingInstructions: [{ sourceElementId: 'review', targetElementId: 'review' }],
    });

    expect(unmapped.status).toBe(400);
    expect((await problemOf(unmapped)).detail).toMatch(/active element "review" has no mapping instruction/);
    expect(nowhere.status).toBe(404);
  });
});
