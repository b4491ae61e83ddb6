import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Api, problemOf, serveApi } from './harness.js';
import { resources } from './models.js';

/** A user task inside a sub-process: `b` shadowed by the sub-process's input, `c` the task's own input. */
const NESTED = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="defs-nested" targetNamespace="t">
  <bpmn:process id="nested" isExecutable="true">
    <bpmn:startEvent id="s" />
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="sub" />
    <bpmn:subProcess id="sub">
      <bpmn:extensionElements><zeebe:ioMapping><zeebe:input source="=2" target="b" /></zeebe:ioMapping></bpmn:extensionElements>
      <bpmn:startEvent id="ss" />
      <bpmn:sequenceFlow id="sf1" sourceRef="ss" targetRef="review" />
      <bpmn:userTask id="review">
        <bpmn:extensionElements><zeebe:ioMapping><zeebe:input source="=3" target="c" /></zeebe:ioMapping></bpmn:extensionElements>
      </bpmn:userTask>
      <bpmn:sequenceFlow id="sf2" sourceRef="review" targetRef="se" />
      <bpmn:endEvent id="se" />
    </bpmn:subProcess>
    <bpmn:sequenceFlow id="f2" sourceRef="sub" targetRef="e" />
    <bpmn:endEvent id="e" />
  </bpmn:process>
</bpmn:definitions>`;

type Item = { name: string; value: string; scopeKey: string; processInstanceKey: string; variableKey: string };

let api: Api;
let instanceKey: string;
let taskKey: string;
beforeEach(async () => {
  api = await serveApi();
  await fetch(`${api.server.url}/deployments`, { method: 'POST', body: resources({ 'nested.bpmn': NESTED }) });
  const created = await api.call('POST', '/process-instances', {
    processDefinitionId: 'nested',
    variables: { a: 1, b: 1 },
  });
  instanceKey = ((await created.json()) as { processInstanceKey: string }).processInstanceKey;
  for (const { instanceId } of await api.engine.instances()) await api.engine.settled(instanceId);
  await api.projection!.caughtUp();
  const tasks = await api.call('POST', '/user-tasks/search', {});
  taskKey = ((await tasks.json()) as { items: { userTaskKey: string }[] }).items[0]!.userTaskKey;
});
afterEach(async () => {
  await api.close();
  expect(api.failures).toEqual([]);
});

async function effective(body: unknown = {}): Promise<{ items: Item[]; page: { totalItems: number } }> {
  const response = await api.call('POST', `/user-tasks/${taskKey}/effective-variables/search`, body);
  expect(response.status).toBe(200);
  return (await response.json()) as { items: Item[]; page: { totalItems: number } };
}

describe('POST /user-tasks/{key}/effective-variables/search', () => {
  it("should answer each variable an open task sees once, the innermost scope's winning", async () => {
    const found = await effective({ sort: [{ field: 'name' }] });
    expect(found.items.map(({ name, value }) => [name, value])).toEqual([
      ['a', '1'],
      ['b', '2'],
      ['c', '3'],
    ]);
    const [a, b, c] = found.items;
    expect(a!.scopeKey).toBe(instanceKey);
    expect(b!.scopeKey).not.toBe(instanceKey);
    expect(new Set([a!.scopeKey, b!.scopeKey, c!.scopeKey]).size).toBe(3);
    // The sub-process's `b` is the variable the variable search keeps under that key.
    const kept = await api.call('GET', `/variables/${b!.variableKey}`);
    expect(await kept.json()).toMatchObject({ name: 'b', value: '2', scopeKey: b!.scopeKey });
    expect((await effective({ filter: { name: { $in: ['a', 'c'] } } })).items.map((item) => item.name)).toEqual([
      'a',
      'c',
    ]);
  });

  it('should answer a completed task from the variables kept of the scopes it was in', async () => {
    expect((await api.call('POST', `/user-tasks/${taskKey}/completion`, {})).status).toBe(204);
    for (const { instanceId } of await api.engine.instances()) await api.engine.settled(instanceId);
    await api.projection!.caughtUp();
    const found = await effective({ sort: [{ field: 'name', order: 'DESC' }] });
    expect(found.items.map(({ name, value }) => [name, value])).toEqual([
      ['b', '2'],
      ['a', '1'],
    ]);
  });

  it('should refuse a key no task has (404) and a filter it cannot apply (400)', async () => {
    const unknown = await api.call('POST', '/user-tasks/16777299/effective-variables/search', {});
    expect((await problemOf(unknown)).status).toBe(404);
    const bad = await api.call('POST', `/user-tasks/${taskKey}/effective-variables/search`, { filter: { nope: 1 } });
    expect(await problemOf(bad)).toMatchObject({ status: 400, detail: expect.stringContaining('$.filter.nope') });
  });
});
