import { createMemoryRepository } from '@thresher/checkpoint';
import { SearchProjection } from '@thresher/rest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Api, problemOf, serveApi } from './harness.js';
import { DISH_DMN, GATED, ORDER_BPMN, resources } from './models.js';

interface Page {
  items: Record<string, unknown>[];
  page: { totalItems: number; startCursor: string | null; endCursor: string | null };
}

let api: Api;
beforeEach(async () => {
  api = await serveApi();
  await fetch(`${api.server.url}/deployments`, {
    method: 'POST',
    body: resources({ 'order.bpmn': ORDER_BPMN(), 'gated.bpmn': GATED }),
  });
});
afterEach(async () => {
  await api.close();
  expect(api.failures).toEqual([]);
});

async function start(processDefinitionId: string, variables: Record<string, unknown>): Promise<string> {
  const created = await api.call('POST', '/process-instances', { processDefinitionId, variables });
  expect(created.status).toBe(200);
  const key = ((await created.json()) as { processInstanceKey: string }).processInstanceKey;
  for (const { instanceId } of await api.engine.instances()) await api.engine.settled(instanceId);
  return key;
}

async function found(path: string, body: unknown): Promise<Page> {
  await api.projection!.caughtUp();
  const response = await api.call('POST', path, body);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as Page;
}

const keysOf = (page: Page, field: string) => page.items.map((item) => item[field]);

describe('searches of runtime data, read from the search projection', () => {
  it('should find process instances by state and by a variable value, sorted and paged by cursor', async () => {
    const first = await start('order', { region: 'north', total: 10 });
    const second = await start('order', { region: 'south', total: 20 });
    const third = await start('order', { region: 'north', total: 30 });
    const taskOf = async (key: string) =>
      (await found('/user-tasks/search', { filter: { processInstanceKey: key } })).items[0]!.userTaskKey as string;
    expect((await api.call('POST', `/user-tasks/${await taskOf(second)}/completion`, {})).status).toBe(204);

    const active = await found('/process-instances/search', {
      filter: { state: 'ACTIVE' },
      sort: [{ field: 'processInstanceKey', order: 'DESC' }],
    });
    expect(keysOf(active, 'processInstanceKey')).toEqual([third, first]);
    expect(active.items[0]).toMatchObject({ processDefinitionId: 'order', state: 'ACTIVE', hasIncident: false });

    const north = await found('/process-instances/search', {
      filter: { variables: [{ name: 'region', value: '"north"' }] },
    });
    expect(keysOf(north, 'processInstanceKey')).toEqual([first, third]);
    const completed = await found('/process-instances/search', { filter: { state: { $in: ['COMPLETED'] } } });
    expect(completed.items).toEqual([
      expect.objectContaining({ processInstanceKey: second, endDate: expect.any(String) }),
    ]);

    const firstPage = await found('/process-instances/search', { page: { limit: 2 } });
    expect(keysOf(firstPage, 'processInstanceKey')).toEqual([first, second]);
    expect(firstPage.page.totalItems).toBe(3);
    const next = await found('/process-instances/search', { page: { limit: 2, after: firstPage.page.endCursor } });
    expect(keysOf(next, 'processInstanceKey')).toEqual([third]);
    const back = await found('/process-instances/search', { page: { limit: 2, before: next.page.startCursor } });
    expect(keysOf(back, 'processInstanceKey')).toEqual([first, second]);
  });

  it('should keep a completed user task searchable and readable by key, with its completion date', async () => {
    const instance = await start('order', { region: 'north' });
    const [task] = (await found('/user-tasks/search', { filter: { processInstanceKey: instance, state: 'CREATED' } }))
      .items;
    expect(task).toMatchObject({
      elementId: 'review',
      processDefinitionId: 'order',
      elementInstanceKey: expect.any(String),
    });

    expect((await api.call('POST', `/user-tasks/${task!.userTaskKey}/completion`, {})).status).toBe(204);
    await api.projection!.caughtUp();

    const byKey = await api.call('GET', `/user-tasks/${task!.userTaskKey}`);
    expect(byKey.status).toBe(200);
    expect(await byKey.json()).toMatchObject({ state: 'COMPLETED', completionDate: expect.any(String) });
    const completed = await found('/user-tasks/search', { filter: { state: 'COMPLETED' } });
    expect(keysOf(completed, 'userTaskKey')).toEqual([task!.userTaskKey]);
    const variables = await found(`/user-tasks/${task!.userTaskKey}/variables/search`, {});
    expect(variables.items).toEqual([
      expect.objectContaining({ name: 'region', value: '"north"', processInstanceKey: instance, scopeKey: instance }),
    ]);
  });

  it('should find incidents, a resolved one marked resolved, and variables by name and key', async () => {
    const instance = await start('gated', { go: false });
    const [incident] = (await found('/incidents/search', { filter: { processInstanceKey: instance } })).items;
    expect(incident).toMatchObject({ state: 'ACTIVE', errorType: 'CONDITION_ERROR', elementId: 'gate' });
    const [variable] = (await found('/variables/search', { filter: { name: 'go', processInstanceKey: instance } }))
      .items;
    expect(variable).toMatchObject({ name: 'go', value: 'false', isTruncated: false });
    const byKey = await api.call('GET', `/variables/${variable!.variableKey}`);
    expect(await byKey.json()).toEqual(variable);

    const [summary] = await api.engine.instances();
    expect((await api.call('POST', `/incidents/${incident!.incidentKey}/resolution`, {})).status).toBe(204);
    await api.engine.settled(summary!.instanceId);

    // Run again, the gate fails again: the first incident resolved, a second one open.
    const incidents = await found(`/process-instances/${instance}/incidents/search`, {
      sort: [{ field: 'state', order: 'DESC' }],
    });
    expect(incidents.items).toEqual([
      expect.objectContaining({ incidentKey: incident!.incidentKey, state: 'RESOLVED' }),
      expect.objectContaining({ state: 'ACTIVE', elementId: 'gate' }),
    ]);
    expect(await (await api.call('GET', `/incidents/${incident!.incidentKey}`)).json()).toMatchObject({
      state: 'RESOLVED',
    });
    const instances = await found('/process-instances/search', { filter: { processInstanceKey: instance } });
    expect(instances.items[0]).toMatchObject({ state: 'ACTIVE', hasIncident: true });
  });

  it("should keep each element's activation: completed, active, then terminated, keyed as its user task names it", async () => {
    const instance = await start('order', {});
    // Ties go in the order the activations began, as Zeebe's sequential keys order them.
    const elements = () =>
      found('/element-instances/search', {
        filter: { processInstanceKey: instance },
        sort: [{ field: 'processDefinitionKey' }],
      });
    const [task] = (await found('/user-tasks/search', { filter: { processInstanceKey: instance } })).items;

    const before = await elements();
    expect(before.items.map(({ elementId, type, state }) => [elementId, type, state])).toEqual([
      ['s', 'START_EVENT', 'COMPLETED'],
      ['review', 'USER_TASK', 'ACTIVE'],
    ]);
    const review = before.items[1]!;
    expect(review.elementInstanceKey).toBe(task!.elementInstanceKey);
    const byKey = await api.call('GET', `/element-instances/${review.elementInstanceKey}`);
    expect(await byKey.json()).toEqual(review);

    expect((await api.call('POST', `/process-instances/${instance}/cancellation`, {})).status).toBe(204);
    for (const { instanceId } of await api.engine.instances()) await api.engine.settled(instanceId);
    const after = await elements();
    expect(after.items.map(({ elementId, state }) => [elementId, state])).toEqual([
      ['s', 'COMPLETED'],
      ['review', 'TERMINATED'],
    ]);
    expect(after.items[1]).toMatchObject({ endDate: expect.any(String) });
    expect((await problemOf(await api.call('GET', '/element-instances/1152921504606846977'))).status).toBe(404);
  });

  it("should set variables from an element instance outwards, on it when local, at the root by the instance's key", async () => {
    const instance = await start('order', { region: 'north' });
    const [review] = (
      await found('/element-instances/search', { filter: { processInstanceKey: instance, elementId: 'review' } })
    ).items;
    const put = (key: unknown, body: unknown) => api.call('PUT', `/element-instances/${key}/variables`, body);

    expect((await put(review!.elementInstanceKey, { variables: { region: 'south', total: 3 } })).status).toBe(204);
    expect((await put(review!.elementInstanceKey, { variables: { note: 'mine' }, local: true })).status).toBe(204);
    expect((await put(instance, { variables: { level: 2 } })).status).toBe(204);

    const [summary] = await api.engine.instances();
    const view = (await api.engine.instance(summary!.instanceId))!;
    expect(view.variables).toEqual({ region: 'south', total: 3, level: 2 });
    expect(view.userTasks[0]!.variables).toMatchObject({ note: 'mine', region: 'south' });

    const refusals: [unknown, unknown, number][] = [
      [review!.elementInstanceKey, { variables: [1] }, 400],
      [review!.elementInstanceKey, { variables: {}, local: 'yes' }, 400],
      [review!.elementInstanceKey, {}, 400],
      ['1152921504606846977', { variables: { a: 1 } }, 404],
      ['x', { variables: { a: 1 } }, 400],
    ];
    for (const [key, body, status] of refusals) {
      expect((await problemOf(await put(key, body))).status, JSON.stringify(body)).toBe(status);
    }
    expect((await api.engine.instance(summary!.instanceId))!.variables).toEqual(view.variables);
  });

  it('should mark the activation an incident stops with it', async () => {
    const instance = await start('gated', { go: false });
    const [incident] = (await found('/incidents/search', { filter: { processInstanceKey: instance } })).items;
    const [gate] = (
      await found('/element-instances/search', { filter: { processInstanceKey: instance, elementId: 'gate' } })
    ).items;
    expect(gate).toMatchObject({ state: 'ACTIVE', hasIncident: true, incidentKey: incident!.incidentKey });
    expect(incident!.elementInstanceKey).toBe(gate!.elementInstanceKey);
  });

  it('should keep each decision a business rule task evaluated, with its inputs and matched rules by key', async () => {
    const ruled = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="defs-ruled" targetNamespace="t">
  <bpmn:process id="ruled" isExecutable="true">
    <bpmn:startEvent id="s" />
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="choose" />
    <bpmn:businessRuleTask id="choose"><bpmn:extensionElements><zeebe:calledDecision decisionId="dish" resultVariable="meal" /></bpmn:extensionElements></bpmn:businessRuleTask>
    <bpmn:sequenceFlow id="f2" sourceRef="choose" targetRef="e" />
    <bpmn:endEvent id="e" />
  </bpmn:process>
</bpmn:definitions>`;
    await fetch(`${api.server.url}/deployments`, {
      method: 'POST',
      body: resources({ 'dish.dmn': DISH_DMN, 'ruled.bpmn': ruled }),
    });
    const instance = await start('ruled', { season: 'Winter' });

    const [decision] = (await found('/decision-instances/search', { filter: { processInstanceKey: instance } })).items;
    expect(decision).toMatchObject({
      state: 'EVALUATED',
      decisionDefinitionId: 'dish',
      decisionDefinitionName: 'Dish',
      decisionDefinitionVersion: 1,
      decisionDefinitionType: 'DECISION_TABLE',
      result: '"Stew"',
      processInstanceKey: instance,
      decisionDefinitionKey: expect.stringMatching(/^\d+$/),
    });
    expect(decision!.decisionEvaluationInstanceKey).toBe(`${decision!.decisionEvaluationKey}-1`);
    const byKey = await api.call('GET', `/decision-instances/${decision!.decisionEvaluationInstanceKey}`);
    expect(await byKey.json()).toMatchObject({
      ...decision,
      evaluatedInputs: [{ inputId: 'in', inputName: 'Season', inputValue: '"Winter"' }],
      matchedRules: [
        {
          ruleId: 'r1',
          ruleIndex: 1,
          evaluatedOutputs: [{ outputId: 'out', outputName: 'dish', outputValue: '"Stew"' }],
        },
      ],
    });
    const none = await api.call('GET', `/decision-instances/${decision!.decisionEvaluationKey}-9`);
    expect((await problemOf(none)).status).toBe(404);
  });

  it('should refuse filters, sorts and cursors it cannot read, naming them', async () => {
    const refusals: [string, unknown, string][] = [
      ['/process-instances/search', { filter: { colour: 'red' } }, '$.filter.colour'],
      ['/process-instances/search', { filter: { state: { $gt: 'ACTIVE' } } }, '$.filter.state.$gt'],
      ['/process-instances/search', { filter: { startDate: 'yesterday' } }, '$.filter.startDate'],
      ['/process-instances/search', { filter: { variables: [{ name: 'a' }] } }, '$.filter.variables[0]'],
      ['/user-tasks/search', { sort: [{ field: 'colour' }] }, '$.sort[0].field'],
      ['/incidents/search', { page: { after: 'nonsense' } }, '$.page.after'],
      ['/variables/search', { filter: { processInstanceKey: 'x' } }, '$.filter.processInstanceKey'],
    ];
    for (const [path, body, where] of refusals) {
      const problem = await problemOf(await api.call('POST', path, body));
      expect(problem.status, path).toBe(400);
      expect(problem.detail, path).toContain(where);
    }
    expect((await problemOf(await api.call('GET', '/variables/1152921504606846977'))).status).toBe(404);
    expect((await problemOf(await api.call('GET', '/variables/x'))).status).toBe(400);
  });

  it('should answer 501 naming the missing projection when the handler keeps none', async () => {
    const bare = await serveApi({}, { projection: false });
    try {
      const problem = await problemOf(await bare.call('POST', '/process-instances/search', {}));
      expect(problem.status).toBe(501);
      expect(problem.detail).toContain('search projection');
    } finally {
      await bare.close();
    }
  });
});

describe('the search projection', () => {
  it('should go on from the position it recorded, and let a second projection on the store add nothing twice', async () => {
    await start('order', {});
    await api.projection!.caughtUp();
    const position = await api.repository.projectionPosition('camunda-search');
    expect(position).not.toBeNull();

    const second = new SearchProjection(api.engine, api.repository, { onError: (error) => api.failures.push(error) });
    await second.caughtUp();
    expect(await api.repository.projectionPosition('camunda-search')).toBe(position);
    await start('order', {});
    await Promise.all([second.caughtUp(), api.projection!.caughtUp()]);
    await second.close();

    const all = await found('/process-instances/search', {});
    expect(all.page.totalItems).toBe(2);
    expect(await api.repository.projectionPosition('camunda-search')).not.toBe(position);
  });

  it('should build the rows of a store it starts on from the log it finds there', async () => {
    const repository = createMemoryRepository();
    const before = await serveApi({}, { repository, projection: false });
    await fetch(`${before.server.url}/deployments`, {
      method: 'POST',
      body: resources({ 'order.bpmn': ORDER_BPMN() }),
    });
    await before.call('POST', '/process-instances', { processDefinitionId: 'order', variables: { n: 1 } });
    for (const { instanceId } of await before.engine.instances()) await before.engine.settled(instanceId);
    await before.server.close();

    const projection = new SearchProjection(before.engine, repository);
    await projection.caughtUp();
    await projection.close();
    const page = await repository.searchRows({ kind: 'processInstance', limit: 10 });
    expect(page.total).toBe(1);
    expect((await repository.searchRows({ kind: 'userTask', limit: 10 })).total).toBe(1);
    await before.engine.close();
  });

  it("should write this engine's saves after waiting for more to join them, without being asked or polling", async () => {
    const repository = createMemoryRepository();
    const served = await serveApi({}, { repository, projection: false });
    await fetch(`${served.server.url}/deployments`, {
      method: 'POST',
      body: resources({ 'order.bpmn': ORDER_BPMN() }),
    });
    const projection = new SearchProjection(served.engine, repository, {
      coalesceMs: 50,
      pollMs: 60_000,
    });
    await projection.caughtUp();
    await Promise.all([1, 2, 3].map((n) => served.engine.start('order', { variables: { n } })));
    for (const { instanceId } of await served.engine.instances()) await served.engine.settled(instanceId);
    // No caughtUp: the saves' own wake-up writes them, once the 50 ms are over.
    for (let waited = 0; (await repository.searchRows({ kind: 'processInstance', limit: 10 })).total < 3; waited++) {
      if (waited > 100) throw new Error('the projection did not write the saves it was woken by');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await projection.close();
    await served.close();
    expect(() => new SearchProjection(served.engine, repository, { coalesceMs: -1 })).toThrow(RangeError);
  });
});
