import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localKey, readKey } from '../src/keys.js';
import { type Api, problemOf, serveApi } from './harness.js';
import { ORDER_BPMN, resources } from './models.js';

let api: Api;
let taskKey: string;
let instanceKey: string;
beforeEach(async () => {
  api = await serveApi();
  await fetch(`${api.server.url}/deployments`, { method: 'POST', body: resources({ 'order.bpmn': ORDER_BPMN() }) });
  const created = await api.call('POST', '/process-instances', { processDefinitionId: 'order', variables: { a: 1 } });
  instanceKey = ((await created.json()) as { processInstanceKey: string }).processInstanceKey;
  const [summary] = await api.engine.instances();
  await api.engine.settled(summary!.instanceId);
  const [task] = (await api.engine.instance(summary!.instanceId))!.userTasks;
  const serial = (readKey(instanceKey, 'key') as { serial: number }).serial;
  taskKey = localKey(serial, task!.id.split('/')[1]!)!;
});
afterEach(async () => {
  await api.close();
  expect(api.failures).toEqual([]);
});

async function task(): Promise<Record<string, unknown>> {
  const response = await api.call('GET', `/user-tasks/${taskKey}`);
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

describe('user tasks by key', () => {
  it('should read an open task', async () => {
    expect(await task()).toMatchObject({
      userTaskKey: taskKey,
      name: 'review',
      state: 'CREATED',
      elementId: 'review',
      processDefinitionId: 'order',
      processDefinitionVersion: 1,
      processInstanceKey: instanceKey,
      tenantId: '<default>',
      priority: 50,
    });
  });

  it('should assign, refuse to take over without allowOverride, unassign, update and complete it', async () => {
    expect((await api.call('POST', `/user-tasks/${taskKey}/assignment`, { assignee: 'ada' })).status).toBe(204);
    expect(await task()).toMatchObject({ assignee: 'ada' });
    const claim = await api.call('POST', `/user-tasks/${taskKey}/assignment`, {
      assignee: 'bob',
      allowOverride: false,
    });
    expect(await problemOf(claim)).toMatchObject({ status: 409 });
    expect((await api.call('DELETE', `/user-tasks/${taskKey}/assignee`)).status).toBe(204);
    expect(await task()).not.toHaveProperty('assignee');
    const update = await api.call('PATCH', `/user-tasks/${taskKey}`, {
      changeset: { priority: 90, candidateGroups: ['ops'] },
    });
    expect(update.status).toBe(204);
    expect(await task()).toMatchObject({ priority: 90, candidateGroups: ['ops'] });

    const completed = await api.call('POST', `/user-tasks/${taskKey}/completion`, { variables: { approved: true } });

    expect(completed.status).toBe(204);
    const instance = await api.call('GET', `/process-instances/${instanceKey}`);
    expect(((await instance.json()) as { state: string }).state).toBe('COMPLETED');
    await api.projection!.caughtUp();
    expect(await task()).toMatchObject({ state: 'COMPLETED', completionDate: expect.any(String) });
  });

  it('should refuse bad bodies and keys naming them, changing nothing', async () => {
    const bad = await api.call('POST', `/user-tasks/${taskKey}/assignment`, { assignee: '' });
    expect((await problemOf(bad)).detail).toContain('$.assignee');
    const priority = await api.call('PATCH', `/user-tasks/${taskKey}`, { changeset: { priority: 101 } });
    expect((await problemOf(priority)).detail).toContain('$.changeset.priority');
    expect((await problemOf(await api.call('GET', '/user-tasks/123'))).status).toBe(404);
    expect((await problemOf(await api.call('GET', '/user-tasks/x'))).status).toBe(400);
    expect(await task()).toMatchObject({ priority: 50, state: 'CREATED' });
  });
});
