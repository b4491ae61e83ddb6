import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { instanceKey, localKey } from '../src/keys.js';
import { type Api, problemOf, serveApi } from './harness.js';
import { GATED, resources } from './models.js';

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

  it('should resolve it, running the element again, and then read it as resolved', async () => {
    await api.call('POST', `/incidents/${incidentKey}/resolution`);
    const stillOpen = await api.engine.settled(instanceId);
    expect(stillOpen.status).toBe('waiting');
    const [again] = stillOpen.status === 'waiting' ? stillOpen.incidents : [];
    expect(again).toBeDefined();
    await api.projection!.caughtUp();
    expect(await (await api.call('GET', `/incidents/${incidentKey}`)).json()).toMatchObject({ state: 'RESOLVED' });
    const bad = await api.call('POST', `/incidents/${incidentKey}/resolution`, { operationReference: 7 });
    expect((await problemOf(bad)).detail).toContain('$.operationReference');
  });
});
