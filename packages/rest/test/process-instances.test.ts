import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readKey } from '../src/keys.js';
import { type Api, problemOf, serveApi } from './harness.js';
import { ORDER_BPMN, resources } from './models.js';

let api: Api;
beforeEach(async () => {
  api = await serveApi();
});
afterEach(async () => {
  await api.close();
});

/** Deploys `order` (as `name`) and answers its process definition key. */
async function deployOrder(name = 'Order'): Promise<string> {
  const response = await fetch(`${api.server.url}/deployments`, {
    method: 'POST',
    body: resources({ [`${name}.bpmn`]: ORDER_BPMN('order', name).replace('defs-order', `defs-${name}`) }),
  });
  const body = (await response.json()) as { deployments: { processDefinition: { processDefinitionKey: string } }[] };
  return body.deployments[0]!.processDefinition.processDefinitionKey;
}

interface Created {
  processDefinitionId: string;
  processDefinitionVersion: number;
  processDefinitionKey: string;
  processInstanceKey: string;
  tenantId: string;
  variables: Record<string, unknown>;
}

describe('POST /process-instances', () => {
  it('should start the latest version by BPMN id, with its variables, answering the instance key', async () => {
    // given two versions of a process
    await deployOrder('One');
    const latest = await deployOrder('Two');

    // when an instance is created by its BPMN id
    const response = await api.call('POST', '/process-instances', {
      processDefinitionId: 'order',
      variables: { total: 120 },
    });

    // then the latest version runs, with the variables, under a key of the instance
    expect(response.status).toBe(200);
    const created = (await response.json()) as Created;
    expect(created).toEqual({
      processDefinitionId: 'order',
      processDefinitionVersion: 2,
      processDefinitionKey: latest,
      processInstanceKey: expect.stringMatching(/^\d+$/),
      tenantId: '<default>',
      variables: {},
    });
    const key = readKey(created.processInstanceKey, 'key');
    expect(key).toMatchObject({ kind: 'instance', local: 0 });
    const [summary] = await api.engine.instances({ serial: (key as { serial: number }).serial });
    const view = await api.engine.instance(summary!.instanceId);
    expect(view?.variables).toEqual({ total: 120 });
    expect(view?.digest).toBeDefined();
  });

  it('should start a version by number, or by its key', async () => {
    const first = await deployOrder('One');
    await deployOrder('Two');

    const byVersion = (await (
      await api.call('POST', '/process-instances', { processDefinitionId: 'order', processDefinitionVersion: 1 })
    ).json()) as Created;
    const byKey = (await (
      await api.call('POST', '/process-instances', { processDefinitionKey: first })
    ).json()) as Created;

    expect(byVersion).toMatchObject({ processDefinitionVersion: 1, processDefinitionKey: first });
    expect(byKey).toMatchObject({
      processDefinitionVersion: 1,
      processDefinitionKey: first,
      processDefinitionId: 'order',
    });
    expect(byKey.processInstanceKey).not.toBe(byVersion.processInstanceKey);
  });

  it('should answer a definition no deployment has with a 404, starting nothing', async () => {
    await deployOrder();
    const cases: [unknown, RegExp][] = [
      [{ processDefinitionId: 'nope' }, /BPMN process id "nope" and any version/],
      [{ processDefinitionId: 'order', processDefinitionVersion: 7 }, /"order" and version 7/],
      [{ processDefinitionKey: '4611686018427387905' }, /no process definition with key 4611686018427387905/],
    ];
    for (const [body, detail] of cases) {
      const response = await api.call('POST', '/process-instances', body);
      expect(response.status, JSON.stringify(body)).toBe(404);
      expect((await problemOf(response)).detail).toMatch(detail);
    }
    expect(await api.engine.instances()).toEqual([]);
  });

  it('should refuse a bad body and what Thresher does not serve yet with a 400 naming the field, starting nothing', async () => {
    await deployOrder();
    const cases: [unknown, RegExp][] = [
      [{}, /\$\.processDefinitionId: /],
      [{ processDefinitionId: 'order', processDefinitionKey: '1' }, /not both/],
      [{ processDefinitionId: 'order', variables: [1] }, /\$\.variables/],
      [{ processDefinitionId: 'order', colour: 'red' }, /colour/],
      [{ processDefinitionKey: 'abc' }, /\$\.processDefinitionKey: "abc" is not a key/],
      [{ processDefinitionId: 'order', tenantId: 'red' }, /tenant "red" is not served/],
      [{ processDefinitionId: 'order', tags: ['a'] }, /\$\.tags: not served by Thresher yet/],
      [{ processDefinitionId: 'order', requestTimeout: -1 }, /\$\.requestTimeout/],
      [{ processDefinitionId: 'order', startInstructions: [{ elementId: 'review' }] }, /\$\.startInstructions/],
    ];
    for (const [body, detail] of cases) {
      const text = JSON.stringify(body);
      const response = await api.call('POST', '/process-instances', body);
      expect(response.status, text).toBe(400);
      expect((await problemOf(response)).detail, text).toMatch(detail);
    }
    expect(await api.engine.instances()).toEqual([]);
  });
});

describe('POST /process-instances with awaitCompletion', () => {
  it('should answer once the instance completed, with the variables fetchVariables names', async () => {
    await deployOrder();
    api.engine.on('userTask.created', (event) => {
      void api.engine.completeUserTask(`${event.instanceId}/${event.taskId}`, { approved: true, note: 'ok' });
    });

    const response = await api.call('POST', '/process-instances', {
      processDefinitionId: 'order',
      variables: { total: 5 },
      awaitCompletion: true,
      fetchVariables: ['approved', 'missing'],
    });

    expect(response.status).toBe(200);
    expect(((await response.json()) as Created).variables).toEqual({ approved: true });
  });

  it('should answer 504 when the instance did not complete within requestTimeout, and leave it running', async () => {
    await deployOrder();

    const response = await api.call('POST', '/process-instances', {
      processDefinitionId: 'order',
      awaitCompletion: true,
      requestTimeout: 50,
    });

    expect(await problemOf(response)).toMatchObject({ status: 504, title: 'DEADLINE_EXCEEDED' });
    expect((await api.engine.instances()).map((summary) => summary.status)).toEqual(['running']);
  });
});

describe('GET /process-instances/{processInstanceKey}', () => {
  it('should answer the instance as it stands, then as it ended', async () => {
    // given a running instance
    const definitionKey = await deployOrder();
    const created = (await (
      await api.call('POST', '/process-instances', { processDefinitionKey: definitionKey })
    ).json()) as Created;

    // when it is read
    const running = await api.call('GET', `/process-instances/${created.processInstanceKey}`);

    // then it is active, on its definition
    expect(running.status).toBe(200);
    const body = (await running.json()) as Record<string, unknown>;
    expect(body).toEqual({
      processDefinitionId: 'order',
      processDefinitionName: 'Order',
      processDefinitionVersion: 1,
      startDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      state: 'ACTIVE',
      hasIncident: false,
      tenantId: '<default>',
      processInstanceKey: created.processInstanceKey,
      processDefinitionKey: definitionKey,
    });

    // and once its user task is done, it is completed with an end date
    const [task] = await api.engine.userTasks();
    await api.engine.completeUserTask(task!.id);
    await api.engine.settled(task!.instanceId);
    const ended = (await (await api.call('GET', `/process-instances/${created.processInstanceKey}`)).json()) as Record<
      string,
      unknown
    >;
    expect(ended).toMatchObject({ state: 'COMPLETED', endDate: expect.stringMatching(/T/) });
  });

  it('should answer a key no instance has with a 404, and text that is no key with a 400', async () => {
    const missing = await api.call('GET', '/process-instances/16777216');
    expect(missing.status).toBe(404);
    expect((await problemOf(missing)).detail).toBe('no process instance with key 16777216 was found');

    const bad = await api.call('GET', '/process-instances/abc');
    expect(bad.status).toBe(400);
    expect((await problemOf(bad)).detail).toMatch(/^path parameter processInstanceKey: "abc" is not a key/);
  });
});

describe('POST /process-instances/{processInstanceKey}/cancellation', () => {
  it('should terminate a running instance, and answer 404 once it has ended', async () => {
    // given a running instance
    const definitionKey = await deployOrder();
    const created = (await (
      await api.call('POST', '/process-instances', { processDefinitionKey: definitionKey })
    ).json()) as Created;

    // when it is cancelled
    const cancelled = await api.call('POST', `/process-instances/${created.processInstanceKey}/cancellation`);

    // then it ends terminated
    expect(cancelled.status).toBe(204);
    const read = (await (await api.call('GET', `/process-instances/${created.processInstanceKey}`)).json()) as {
      state: string;
    };
    expect(read.state).toBe('TERMINATED');

    // and cancelling it again is a 404, as Zeebe answers
    const again = await api.call('POST', `/process-instances/${created.processInstanceKey}/cancellation`, {});
    expect(again.status).toBe(404);
    expect((await problemOf(again)).detail).toMatch(/no running process instance with key \d+: it has terminated/);
  });

  it('should refuse an operation reference and a key no instance has, changing nothing', async () => {
    const definitionKey = await deployOrder();
    const created = (await (
      await api.call('POST', '/process-instances', { processDefinitionKey: definitionKey })
    ).json()) as Created;

    const referenced = await api.call('POST', `/process-instances/${created.processInstanceKey}/cancellation`, {
      operationReference: 7,
    });
    const missing = await api.call('POST', '/process-instances/33554432/cancellation');

    expect(referenced.status).toBe(400);
    expect((await problemOf(referenced)).detail).toMatch(/\$\.operationReference: not served/);
    expect(missing.status).toBe(404);
    const [instance] = await api.engine.instances();
    expect(instance?.status).toBe('running');
  });
});
