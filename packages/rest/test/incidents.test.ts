import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { instanceKey, localKey } from '../src/keys.js';
import { type Api, problemOf, serveApi } from './harness.js';
import { resources } from './models.js';

/** A gateway whose condition fails until `go` is set: a condition incident, resolved once it is. */
const GATED = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="defs-gated" targetNamespace="t">
  <bpmn:process id="gated" isExecutable="true">
    <bpmn:startEvent id="s" />
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="gate" />
    <bpmn:exclusiveGateway id="gate" />
    <bpmn:sequenceFlow id="f2" sourceRef="gate" targetRef="e"><bpmn:conditionExpression>=go = true</bpmn:conditionExpression></bpmn:sequenceFlow>
    <bpmn:endEvent id="e" />
  </bpmn:process>
</bpmn:definitions>`;

let api: Api;
let incidentKey: string;
let processInstanceKey: string;
let instanceId: string;
beforeEach(async () => {
  api = await serveApi();
  await fetch(`${api.server.url}/deployments`, { method: 'POST', body: resources({ 'gated.bpmn': GATED }) });
  await api.call('POST', '/process-instances', { processDefinitionId: 'gated', variables: { go: false } });
  const [summary] = await api.engine.instances();
  instanceId = summary!.instanceId;
  const settled = await api.engine.settled(instanceId);
  const [incident] = settled.status === 'waiting' ? settled.incidents : [];
  processInstanceKey = instanceKey(summary!.serial);
  incidentKey = localKey(summary!.serial, incident!.id.split('/').pop()!)!;
});
afterEach(async () => {
  await api.close();
  expect(api.failures).toEqual([]);
});

describe('incidents by key', () => {
  it('should read an open incident as Camunda describes it', async () => {
    const response = await api.call('GET', `/incidents/${incidentKey}`);

    expect(await response.json()).toEqual({
      incidentKey,
      processDefinitionId: 'gated',
      processDefinitionKey: expect.stringMatching(/^\d+$/),
      processInstanceKey,
      errorType: 'CONDITION_ERROR',
      errorMessage: expect.any(String),
      elementId: 'gate',
      elementInstanceKey: expect.stringMatching(/^\d+$/),
      creationTime: expect.any(String),
      state: 'ACTIVE',
      tenantId: '<default>',
    });
  });

  it('should resolve it, running the element again, and then answer 404 for it', async () => {
    await api.call('POST', `/incidents/${incidentKey}/resolution`);
    const stillOpen = await api.engine.settled(instanceId);
    expect(stillOpen.status).toBe('waiting');
    const [again] = stillOpen.status === 'waiting' ? stillOpen.incidents : [];
    expect(again).toBeDefined();
    expect((await problemOf(await api.call('GET', `/incidents/${incidentKey}`))).status).toBe(404);
    const bad = await api.call('POST', `/incidents/${incidentKey}/resolution`, { operationReference: 7 });
    expect((await problemOf(bad)).detail).toContain('$.operationReference');
  });
});
