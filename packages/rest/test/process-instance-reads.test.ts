import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { instanceKey } from '../src/keys.js';
import { type Api, problemOf, serveApi } from './harness.js';
import { resources } from './models.js';

/** `parent` calls `child`, which waits at a user task. */
const CALLS = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="defs-calls" targetNamespace="t">
  <bpmn:process id="parent" name="Parent" isExecutable="true">
    <bpmn:startEvent id="ps" />
    <bpmn:sequenceFlow id="pf1" sourceRef="ps" targetRef="call" />
    <bpmn:callActivity id="call"><bpmn:extensionElements><zeebe:calledElement processId="child" /></bpmn:extensionElements></bpmn:callActivity>
    <bpmn:sequenceFlow id="pf2" sourceRef="call" targetRef="pe" />
    <bpmn:endEvent id="pe" />
  </bpmn:process>
  <bpmn:process id="child" name="Child" isExecutable="true">
    <bpmn:startEvent id="cs" />
    <bpmn:sequenceFlow id="cf1" sourceRef="cs" targetRef="task" />
    <bpmn:userTask id="task" />
    <bpmn:sequenceFlow id="cf2" sourceRef="task" targetRef="ce" />
    <bpmn:endEvent id="ce" />
  </bpmn:process>
</bpmn:definitions>`;

let api: Api;
let parentKey: string;
beforeEach(async () => {
  api = await serveApi();
  await fetch(`${api.server.url}/deployments`, { method: 'POST', body: resources({ 'calls.bpmn': CALLS }) });
  const created = await api.call('POST', '/process-instances', { processDefinitionId: 'parent' });
  parentKey = ((await created.json()) as { processInstanceKey: string }).processInstanceKey;
  const [root] = await api.engine.instances({ roots: true });
  await api.engine.settled(root!.instanceId);
});
afterEach(async () => {
  await api.close();
  expect(api.failures).toEqual([]);
});

async function childKey(): Promise<string> {
  const [child] = await api.engine.instances({ children: true });
  return instanceKey(child!.serial);
}

describe('GET /process-instances/{key}/sequence-flows', () => {
  it('should list each flow the instance took', async () => {
    const response = await api.call('GET', `/process-instances/${await childKey()}/sequence-flows`);

    const body = (await response.json()) as { items: { sequenceFlowId: string; processDefinitionId: string }[] };
    expect(body.items.map((item) => [item.sequenceFlowId, item.processDefinitionId])).toEqual([['cf1', 'child']]);
  });
});

describe('GET /process-instances/{key}/call-hierarchy', () => {
  it('should answer the instances that called it, root first, then itself', async () => {
    const child = await childKey();

    const response = await api.call('GET', `/process-instances/${child}/call-hierarchy`);

    expect(await response.json()).toEqual([
      { processInstanceKey: parentKey, processDefinitionKey: expect.any(String), processDefinitionName: 'Parent' },
      { processInstanceKey: child, processDefinitionKey: expect.any(String), processDefinitionName: 'Child' },
    ]);
    expect((await problemOf(await api.call('GET', '/process-instances/99/call-hierarchy'))).status).toBe(404);
  });
});
