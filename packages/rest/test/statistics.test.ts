import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Api, problemOf, serveApi } from './harness.js';
import { GATED, ORDER_BPMN, resources } from './models.js';

/** An ad-hoc sub-process of two user tasks, nothing activated on entry. */
const AD_HOC = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="defs-loose" targetNamespace="t">
  <bpmn:process id="loose" isExecutable="true">
    <bpmn:startEvent id="s" />
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="ah" />
    <bpmn:adHocSubProcess id="ah"><bpmn:userTask id="look" /><bpmn:userTask id="fix" /></bpmn:adHocSubProcess>
    <bpmn:sequenceFlow id="f2" sourceRef="ah" targetRef="e" />
    <bpmn:endEvent id="e" />
  </bpmn:process>
</bpmn:definitions>`;

/** A message catch keyed by the instance's `orderId`. */
const WAITING = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="defs-waiting" targetNamespace="t">
  <bpmn:message id="m" name="paid"><bpmn:extensionElements><zeebe:subscription correlationKey="=orderId" /></bpmn:extensionElements></bpmn:message>
  <bpmn:process id="waiting" isExecutable="true">
    <bpmn:startEvent id="s" />
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="pay" />
    <bpmn:intermediateCatchEvent id="pay"><bpmn:messageEventDefinition messageRef="m" /></bpmn:intermediateCatchEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="pay" targetRef="e" />
    <bpmn:endEvent id="e" />
  </bpmn:process>
</bpmn:definitions>`;

let api: Api;
beforeEach(async () => {
  api = await serveApi();
  const body = resources({
    'order.bpmn': ORDER_BPMN(),
    'gated.bpmn': GATED,
    'loose.bpmn': AD_HOC,
    'waiting.bpmn': WAITING,
  });
  await fetch(`${api.server.url}/deployments`, { method: 'POST', body });
});
afterEach(async () => {
  await api.close();
  expect(api.failures).toEqual([]);
});

async function start(processDefinitionId: string, variables: Record<string, unknown> = {}): Promise<string> {
  const created = await api.call('POST', '/process-instances', { processDefinitionId, variables });
  const key = ((await created.json()) as { processInstanceKey: string }).processInstanceKey;
  for (const { instanceId } of await api.engine.instances()) await api.engine.settled(instanceId);
  await api.projection!.caughtUp();
  return key;
}

describe('statistics and usage, from the search projection', () => {
  it("should count a process instance's element instances by element and state", async () => {
    const gated = await start('gated', { go: false });
    const response = await api.call('GET', `/process-instances/${gated}/statistics/element-instances`);
    expect(await response.json()).toEqual({
      items: [
        { elementId: 'gate', active: 0, canceled: 0, incidents: 1, completed: 0 },
        { elementId: 's', active: 0, canceled: 0, incidents: 0, completed: 1 },
      ],
    });
    const order = await start('order');
    await api.call('POST', `/process-instances/${order}/cancellation`, {});
    await start('order');
    const statistics = await api.call('GET', `/process-instances/${order}/statistics/element-instances`);
    const cancelled = (await statistics.json()) as { items: unknown[] };
    expect(cancelled.items).toContainEqual({ elementId: 'review', active: 0, canceled: 1, incidents: 0, completed: 0 });

    const definitions = await api.call('POST', '/process-definitions/search', {
      filter: { processDefinitionId: 'order' },
    });
    const [definition] = ((await definitions.json()) as { items: { processDefinitionKey: string }[] }).items;
    const byDefinition = `/process-definitions/${definition!.processDefinitionKey}/statistics/element-instances`;
    expect(await (await api.call('POST', byDefinition, {})).json()).toEqual({
      items: [
        { elementId: 'review', active: 1, canceled: 1, incidents: 0, completed: 0 },
        { elementId: 's', active: 0, canceled: 0, incidents: 0, completed: 2 },
      ],
    });
    const filtered = await problemOf(await api.call('POST', byDefinition, { filter: { state: 'ACTIVE' } }));
    expect(filtered).toMatchObject({ status: 400, detail: expect.stringContaining('$.filter.state') });
  });

  it('should count the instances started, decisions evaluated and people assigned in a time range', async () => {
    await start('order');
    await start('order');
    const [task] = (
      (await (await api.call('POST', '/user-tasks/search', {})).json()) as { items: { userTaskKey: string }[] }
    ).items;
    await api.call('POST', `/user-tasks/${task!.userTaskKey}/assignment`, { assignee: 'ana' });
    await api.projection!.caughtUp();
    const now = Date.now();
    const range = (from: number, to: number) =>
      `/system/usage-metrics?startTime=${new Date(from).toISOString()}&endTime=${new Date(to).toISOString()}`;

    expect(await (await api.call('GET', `${range(now - 60_000, now + 60_000)}&withTenants=true`)).json()).toEqual({
      processInstances: 2,
      decisionInstances: 0,
      assignees: 1,
      activeTenants: 1,
      tenants: { '<default>': { processInstances: 2, decisionInstances: 0, assignees: 1 } },
    });
    expect(await (await api.call('GET', range(now + 60_000, now + 120_000))).json()).toMatchObject({
      processInstances: 0,
      activeTenants: 0,
      tenants: {},
    });
    for (const bad of [
      '/system/usage-metrics',
      `${range(now, now)}&withTenants=maybe`,
      '/system/usage-metrics?startTime=x&endTime=y',
    ]) {
      expect((await problemOf(await api.call('GET', bad))).status, bad).toBe(400);
    }
  });
});

describe('POST /message-subscriptions/search', () => {
  it('should keep each message an instance waited for: created, then correlated or deleted', async () => {
    const first = await start('waiting', { orderId: 'A-1' });
    const second = await start('waiting', { orderId: 'B-2' });
    const subscriptions = async (filter: unknown) => {
      await api.projection!.caughtUp();
      const response = await api.call('POST', '/message-subscriptions/search', { filter });
      return ((await response.json()) as { items: Record<string, unknown>[] }).items;
    };
    expect(await subscriptions({ processInstanceKey: first })).toEqual([
      expect.objectContaining({
        messageName: 'paid',
        correlationKey: 'A-1',
        elementId: 'pay',
        messageSubscriptionState: 'CREATED',
        elementInstanceKey: expect.stringMatching(/^\d+$/),
      }),
    ]);

    await api.call('POST', '/messages/publication', { name: 'paid', correlationKey: 'A-1' });
    for (const { instanceId } of await api.engine.instances()) await api.engine.settled(instanceId);
    await api.call('POST', `/process-instances/${second}/cancellation`, {});
    for (const { instanceId } of await api.engine.instances()) await api.engine.settled(instanceId);

    expect((await subscriptions({ processInstanceKey: first }))[0]).toMatchObject({
      messageSubscriptionState: 'CORRELATED',
    });
    expect((await subscriptions({ processInstanceKey: second }))[0]).toMatchObject({
      messageSubscriptionState: 'DELETED',
    });
    expect(await subscriptions({ messageSubscriptionState: 'CREATED' })).toEqual([]);
  });
});

describe('POST /element-instances/ad-hoc-activities/{key}/activation', () => {
  it('should activate elements of a running ad-hoc sub-process by its element instance key, each with its variables', async () => {
    const instance = await start('loose');
    const search = await api.call('POST', '/element-instances/search', {
      filter: { processInstanceKey: instance, elementId: 'ah' },
    });
    const [adHoc] = ((await search.json()) as { items: { elementInstanceKey: string }[] }).items;
    const activate = (body: unknown) =>
      api.call('POST', `/element-instances/ad-hoc-activities/${adHoc!.elementInstanceKey}/activation`, body);

    expect((await activate({ elements: [{ elementId: 'look', variables: { why: 'check' } }] })).status).toBe(204);

    const [summary] = await api.engine.instances();
    const view = (await api.engine.instance(summary!.instanceId))!;
    expect(view.userTasks.map((task) => [task.elementId, task.variables.why])).toEqual([['look', 'check']]);
    expect((await problemOf(await activate({ elements: [{ elementId: 'nowhere' }] }))).status).toBe(400);
    expect(
      (await problemOf(await activate({ elements: [{ elementId: 'fix' }], cancelRemainingInstances: true }))).detail,
    ).toContain('cancelRemainingInstances');
    expect((await problemOf(await activate({}))).status).toBe(400);
    const other = await api.call('POST', `/element-instances/ad-hoc-activities/${instance}/activation`, {
      elements: [{ elementId: 'fix' }],
    });
    expect((await problemOf(other)).status).toBe(404);
  });
});
