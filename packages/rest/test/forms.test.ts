import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Api, problemOf, serveApi } from './harness.js';
import { ORDER_BPMN, resources } from './models.js';

const FORM = JSON.stringify({ id: 'review-form', type: 'default', components: [{ key: 'ok', type: 'checkbox' }] });

/** A user task linked to the form `review-form`. */
const LINKED = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="defs-linked" targetNamespace="t">
  <bpmn:process id="linked" isExecutable="true">
    <bpmn:startEvent id="s" />
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="review" />
    <bpmn:userTask id="review"><bpmn:extensionElements><zeebe:formDefinition formId="review-form" /></bpmn:extensionElements></bpmn:userTask>
    <bpmn:sequenceFlow id="f2" sourceRef="review" targetRef="e" />
    <bpmn:endEvent id="e" />
  </bpmn:process>
</bpmn:definitions>`;

let api: Api;
beforeEach(async () => {
  api = await serveApi();
  const body = resources({ 'linked.bpmn': LINKED, 'order.bpmn': ORDER_BPMN(), 'review.form': FORM });
  await fetch(`${api.server.url}/deployments`, { method: 'POST', body });
});
afterEach(async () => {
  await api.close();
  expect(api.failures).toEqual([]);
});

async function taskOf(processDefinitionId: string): Promise<string> {
  await api.call('POST', '/process-instances', { processDefinitionId });
  for (const { instanceId } of await api.engine.instances()) await api.engine.settled(instanceId);
  await api.projection!.caughtUp();
  const response = await api.call('POST', '/user-tasks/search', { filter: { processDefinitionId } });
  return ((await response.json()) as { items: { userTaskKey: string }[] }).items[0]!.userTaskKey;
}

describe('GET /user-tasks/{key}/form', () => {
  it('should answer the linked form as its latest deployment, for an open task and a completed one', async () => {
    const task = await taskOf('linked');
    const form = await api.call('GET', `/user-tasks/${task}/form`);
    expect(form.status).toBe(200);
    expect(await form.json()).toEqual({
      tenantId: '<default>',
      formId: 'review-form',
      schema: FORM,
      version: 1,
      formKey: expect.stringMatching(/^\d+$/),
    });

    const changed = JSON.stringify({ id: 'review-form', type: 'default', components: [] });
    await fetch(`${api.server.url}/deployments`, { method: 'POST', body: resources({ 'review.form': changed }) });
    await api.call('POST', `/user-tasks/${task}/completion`, {});
    await api.projection!.caughtUp();
    const after = await api.call('GET', `/user-tasks/${task}/form`);
    expect(await after.json()).toMatchObject({ schema: changed, version: 2 });
  });

  it('should answer 204 for a task without a form, and 404 for a key no task has', async () => {
    const task = await taskOf('order');
    const none = await api.call('GET', `/user-tasks/${task}/form`);
    expect(none.status).toBe(204);
    expect((await problemOf(await api.call('GET', '/user-tasks/16777299/form'))).status).toBe(404);
  });
});
