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

/** A process whose none start event links `review-form` (its start form), and one whose start embeds a form. */
const STARTS = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="defs-starts" targetNamespace="t">
  <bpmn:process id="started" isExecutable="true">
    <bpmn:startEvent id="s"><bpmn:extensionElements><zeebe:formDefinition formId="review-form" /></bpmn:extensionElements></bpmn:startEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="e" />
    <bpmn:endEvent id="e" />
  </bpmn:process>
  <bpmn:process id="embedded" isExecutable="true">
    <bpmn:extensionElements><zeebe:userTaskForm id="f">{"id":"inner","components":[]}</zeebe:userTaskForm></bpmn:extensionElements>
    <bpmn:startEvent id="s2"><bpmn:extensionElements><zeebe:formDefinition formKey="camunda-forms:bpmn:f" /></bpmn:extensionElements></bpmn:startEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="s2" targetRef="e2" />
    <bpmn:endEvent id="e2" />
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

describe('GET /process-definitions/{key}/form', () => {
  async function definition(
    processDefinitionId: string,
  ): Promise<{ processDefinitionKey: string; hasStartForm: boolean }> {
    const response = await api.call('POST', '/process-definitions/search', { filter: { processDefinitionId } });
    return ((await response.json()) as { items: { processDefinitionKey: string; hasStartForm: boolean }[] }).items[0]!;
  }

  it("should answer the linked form of the process's none start event, and say the definition has a start form", async () => {
    await fetch(`${api.server.url}/deployments`, { method: 'POST', body: resources({ 'starts.bpmn': STARTS }) });
    const started = await definition('started');
    expect(started.hasStartForm).toBe(true);
    const form = await api.call('GET', `/process-definitions/${started.processDefinitionKey}/form`);
    expect(form.status).toBe(200);
    expect(await form.json()).toEqual({
      tenantId: '<default>',
      formId: 'review-form',
      schema: FORM,
      version: 1,
      formKey: expect.stringMatching(/^\d+$/),
    });
  });

  it('should answer 204 for a process without a start form or with an embedded one, as the spec serves linked forms only', async () => {
    await fetch(`${api.server.url}/deployments`, { method: 'POST', body: resources({ 'starts.bpmn': STARTS }) });
    const order = await definition('order');
    expect(order.hasStartForm).toBe(false);
    expect((await api.call('GET', `/process-definitions/${order.processDefinitionKey}/form`)).status).toBe(204);
    const embedded = await definition('embedded');
    expect((await api.call('GET', `/process-definitions/${embedded.processDefinitionKey}/form`)).status).toBe(204);
  });

  it('should answer 404 for a key no definition has, and for a start form no deployment holds', async () => {
    expect((await problemOf(await api.call('GET', '/process-definitions/4611686018427387999/form'))).status).toBe(404);
    const missing = STARTS.replace('formId="review-form"', 'formId="missing-form"').replace('defs-starts', 'defs-m');
    await fetch(`${api.server.url}/deployments`, { method: 'POST', body: resources({ 'missing.bpmn': missing }) });
    const started = await definition('started');
    const problem = await problemOf(await api.call('GET', `/process-definitions/${started.processDefinitionKey}/form`));
    expect(problem).toMatchObject({ status: 404, detail: expect.stringContaining('"missing-form"') });
  });
});
