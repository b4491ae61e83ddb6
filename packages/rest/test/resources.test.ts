import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Api, problemOf, serveApi } from './harness.js';
import { DISH_DMN, ORDER_BPMN, resources } from './models.js';

const FORM = JSON.stringify({ id: 'review-form', components: [] });

let api: Api;
let keys: { process: string; requirements: string; decision: string; form: string };
beforeEach(async () => {
  api = await serveApi();
  const response = await fetch(`${api.server.url}/deployments`, {
    method: 'POST',
    body: resources({ 'order.bpmn': ORDER_BPMN(), 'dish.dmn': DISH_DMN, 'review.form': FORM }),
  });
  const { deployments } = (await response.json()) as { deployments: Record<string, Record<string, string>>[] };
  const find = (kind: string, field: string) => deployments.find((entry) => entry[kind])![kind]![field]!;
  keys = {
    process: find('processDefinition', 'processDefinitionKey'),
    requirements: find('decisionRequirements', 'decisionRequirementsKey'),
    decision: find('decisionDefinition', 'decisionDefinitionKey'),
    form: find('form', 'formKey'),
  };
});
afterEach(async () => {
  await api.close();
  expect(api.failures).toEqual([]);
});

describe('deployed resources by key', () => {
  it('should answer a process definition, decision requirements and a form as resources, with their content', async () => {
    const read = async (key: string) => (await api.call('GET', `/resources/${key}`)).json();

    expect(await read(keys.process)).toEqual({
      resourceName: 'defs-order.bpmn',
      version: 1,
      resourceId: 'order',
      tenantId: '<default>',
      resourceKey: keys.process,
    });
    expect(await read(keys.requirements)).toMatchObject({
      resourceId: 'dish-drd',
      resourceName: 'dish-drd.dmn',
      version: 1,
    });
    expect(await read(keys.form)).toMatchObject({ resourceId: 'review-form', resourceName: 'review-form.form' });
    expect(await (await api.call('GET', `/resources/${keys.form}/content`)).json()).toBe(FORM);
    expect((await problemOf(await api.call('GET', `/resources/${keys.decision}`))).status).toBe(404);
  });

  it('should answer a decision definition and its requirements, each with its XML', async () => {
    const decision = await api.call('GET', `/decision-definitions/${keys.decision}`);
    const requirements = await api.call('GET', `/decision-requirements/${keys.requirements}`);
    const xml = await api.call('GET', `/decision-definitions/${keys.decision}/xml`);

    expect(await decision.json()).toEqual({
      decisionDefinitionId: 'dish',
      name: 'Dish',
      version: 1,
      decisionRequirementsId: 'dish-drd',
      tenantId: '<default>',
      decisionDefinitionKey: keys.decision,
      decisionRequirementsKey: keys.requirements,
    });
    expect(await requirements.json()).toMatchObject({
      decisionRequirementsName: 'Dishes',
      decisionRequirementsId: 'dish-drd',
    });
    expect(await xml.text()).toBe(DISH_DMN);
    expect((await problemOf(await api.call('GET', `/decision-definitions/${keys.requirements}`))).status).toBe(404);
    expect((await problemOf(await api.call('GET', '/decision-requirements/12'))).status).toBe(404);
  });

  it('should search decision definitions and requirements as their gets answer them, a new version of each counted', async () => {
    const changed = DISH_DMN.replace('name="Dish"', 'name="Dish, again"');
    await fetch(`${api.server.url}/deployments`, { method: 'POST', body: resources({ 'dish.dmn': changed }) });
    const searched = async (path: string, body: unknown) => {
      const response = await api.call('POST', path, body);
      expect(response.status).toBe(200);
      return (await response.json()) as { items: Record<string, unknown>[]; page: { totalItems: number } };
    };
    const decision = await (await api.call('GET', `/decision-definitions/${keys.decision}`)).json();

    const all = await searched('/decision-definitions/search', { sort: [{ field: 'version', order: 'DESC' }] });
    expect(all.items.map((item) => [item.decisionDefinitionId, item.version, item.name])).toEqual([
      ['dish', 2, 'Dish, again'],
      ['dish', 1, 'Dish'],
    ]);
    expect((await searched('/decision-definitions/search', { filter: { version: 1 } })).items).toEqual([decision]);
    const requirements = await searched('/decision-requirements/search', {
      filter: { decisionRequirementsId: 'dish-drd' },
    });
    expect(requirements.page.totalItems).toBe(2);
    const first = requirements.items.find((item) => item.decisionRequirementsKey === keys.requirements);
    expect(first).toEqual(await (await api.call('GET', `/decision-requirements/${keys.requirements}`)).json());
    const bad = await api.call('POST', '/decision-definitions/search', { filter: { colour: 'red' } });
    expect(bad.status).toBe(400);
  });
});

describe('POST /resources/{key}/deletion', () => {
  const deletion = (key: string, body?: unknown) => api.call('POST', `/resources/${key}/deletion`, body);

  it('should delete a process definition: not found by key or search, and no instance starts on it', async () => {
    const running = await api.call('POST', '/process-instances', { processDefinitionKey: keys.process });
    const instance = ((await running.json()) as { processInstanceKey: string }).processInstanceKey;
    expect((await deletion(keys.process)).status).toBe(200);

    expect((await problemOf(await api.call('GET', `/process-definitions/${keys.process}`))).status).toBe(404);
    expect((await problemOf(await api.call('GET', `/resources/${keys.process}`))).status).toBe(404);
    const search = await api.call('POST', '/process-definitions/search', {});
    expect(((await search.json()) as { items: unknown[] }).items).toEqual([]);
    const byId = await api.call('POST', '/process-instances', { processDefinitionId: 'order' });
    expect((await problemOf(byId)).status).toBe(404);
    const byKey = await api.call('POST', '/process-instances', { processDefinitionKey: keys.process });
    expect((await problemOf(byKey)).status).toBe(404);
    // The instance that ran on it runs on, and is read as before.
    expect(await (await api.call('GET', `/process-instances/${instance}`)).json()).toMatchObject({
      state: 'ACTIVE',
      processDefinitionKey: keys.process,
    });
    expect((await problemOf(await deletion(keys.process))).status).toBe(404);
  });

  it('should delete decision requirements and a form, leaving the decisions of no search', async () => {
    expect((await deletion(keys.requirements, {})).status).toBe(200);
    expect((await deletion(keys.form)).status).toBe(200);
    expect((await problemOf(await api.call('GET', `/decision-requirements/${keys.requirements}`))).status).toBe(404);
    expect((await problemOf(await api.call('GET', `/decision-definitions/${keys.decision}`))).status).toBe(404);
    expect((await problemOf(await api.call('GET', `/resources/${keys.form}`))).status).toBe(404);
    const decisions = await api.call('POST', '/decision-definitions/search', {});
    expect(((await decisions.json()) as { items: unknown[] }).items).toEqual([]);
  });

  it('should take a file deployed again as live again', async () => {
    await deletion(keys.process);
    await fetch(`${api.server.url}/deployments`, { method: 'POST', body: resources({ 'order.bpmn': ORDER_BPMN() }) });
    const started = await api.call('POST', '/process-instances', { processDefinitionId: 'order' });
    expect(await started.json()).toMatchObject({ processDefinitionKey: keys.process });
  });

  it('should refuse a decision key, an unknown key, an operation reference, and one process of a file of several', async () => {
    expect((await problemOf(await deletion(keys.decision))).status).toBe(404);
    expect((await problemOf(await deletion('4611686018427387999'))).status).toBe(404);
    const reference = await problemOf(await deletion(keys.process, { operationReference: 1 }));
    expect(reference).toMatchObject({ status: 400, detail: expect.stringContaining('$.operationReference') });

    const process = (id: string) =>
      `<bpmn:process id="${id}" isExecutable="true"><bpmn:startEvent id="${id}-s" /></bpmn:process>`;
    const pair = ORDER_BPMN('pair').replace(
      /<bpmn:process[\s\S]*<\/bpmn:process>/,
      `${process('first')}${process('second')}`,
    );
    const deployed = await fetch(`${api.server.url}/deployments`, {
      method: 'POST',
      body: resources({ 'pair.bpmn': pair }),
    });
    const body = (await deployed.json()) as { deployments: { processDefinition: { processDefinitionKey: string } }[] };
    const first = body.deployments[0]!.processDefinition.processDefinitionKey;
    const refused = await problemOf(await deletion(first));
    expect(refused).toMatchObject({ status: 409, detail: expect.stringContaining('"second"') });
  });
});
