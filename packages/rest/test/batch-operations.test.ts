import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Api, problemOf, serveApi } from './harness.js';
import { GATED, ORDER_BPMN, resources } from './models.js';

let api: Api;
beforeEach(async () => {
  api = await serveApi({ backoff: () => 0 });
});
afterEach(async () => {
  await api.close();
});

interface Batch {
  batchOperationKey: string;
  state: string;
  batchOperationType: string;
  operationsTotalCount: number;
  operationsCompletedCount: number;
  operationsFailedCount: number;
}

async function deploy(xml = ORDER_BPMN()): Promise<string> {
  const response = await fetch(`${api.server.url}/deployments`, { method: 'POST', body: resources({ 'o.bpmn': xml }) });
  const body = (await response.json()) as { deployments: { processDefinition: { processDefinitionKey: string } }[] };
  return body.deployments[0]!.processDefinition.processDefinitionKey;
}

async function started(count: number, processDefinitionId = 'order'): Promise<string[]> {
  const keys: string[] = [];
  for (let n = 0; n < count; n++) {
    const created = await api.call('POST', '/process-instances', { processDefinitionId });
    keys.push(((await created.json()) as { processInstanceKey: string }).processInstanceKey);
  }
  return keys;
}

/** The batch once it ended (its runner works in the background). */
async function ended(key: string): Promise<Batch> {
  for (;;) {
    const batch = (await (await api.call('GET', `/batch-operations/${key}`)).json()) as Batch;
    if (!['CREATED', 'ACTIVE'].includes(batch.state)) return batch;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function states(keys: string[]): Promise<string[]> {
  await api.projection!.caughtUp();
  return Promise.all(
    keys.map(
      async (key) => ((await (await api.call('GET', `/process-instances/${key}`)).json()) as { state: string }).state,
    ),
  );
}

describe('batch operations', () => {
  it('should cancel every instance the filter matches, once each, with its progress and items kept', async () => {
    await deploy();
    const keys = await started(5);
    await api.projection!.caughtUp();

    const made = await api.call('POST', '/process-instances/cancellation', {
      filter: { processDefinitionId: 'order' },
    });

    expect(made.status).toBe(200);
    const { batchOperationKey, batchOperationType } = (await made.json()) as Batch;
    expect(batchOperationType).toBe('CANCEL_PROCESS_INSTANCE');
    expect(await ended(batchOperationKey)).toMatchObject({
      state: 'COMPLETED',
      operationsTotalCount: 5,
      operationsCompletedCount: 5,
      operationsFailedCount: 0,
    });
    expect(await states(keys)).toEqual(keys.map(() => 'TERMINATED'));
    const items = await api.call('POST', '/batch-operation-items/search', { filter: { batchOperationKey } });
    const found = (await items.json()) as { items: { itemKey: string; state: string }[] };
    expect(found.items.map((item) => item.itemKey).sort()).toEqual([...keys].sort());
    expect(new Set(found.items.map((item) => item.state))).toEqual(new Set(['COMPLETED']));
    const searched = await api.call('POST', '/batch-operations/search', { filter: { state: 'COMPLETED' } });
    expect(((await searched.json()) as { items: Batch[] }).items.map((batch) => batch.batchOperationKey)).toEqual([
      batchOperationKey,
    ]);
    expect(api.failures).toEqual([]);
  });

  it('should move tokens and migrate in batches, each item failing alone when the engine refuses it', async () => {
    await deploy();
    const keys = await started(2);
    await api.projection!.caughtUp();

    const moved = await api.call('POST', '/process-instances/modification', {
      filter: { processInstanceKey: { $in: keys } },
      moveInstructions: [{ sourceElementId: 'review', targetElementId: 'e' }],
    });
    const move = await ended(((await moved.json()) as Batch).batchOperationKey);

    expect(move).toMatchObject({ state: 'COMPLETED', operationsCompletedCount: 2 });
    expect(await states(keys)).toEqual(['COMPLETED', 'COMPLETED']);

    const more = await started(2);
    const v2 = await deploy(
      ORDER_BPMN().replace(
        '<bpmn:sequenceFlow id="f2" sourceRef="review" targetRef="e" />',
        '<bpmn:sequenceFlow id="f2" sourceRef="review" targetRef="extra" /><bpmn:manualTask id="extra" /><bpmn:sequenceFlow id="f3" sourceRef="extra" targetRef="e" />',
      ),
    );
    await api.projection!.caughtUp();
    const migrated = await api.call('POST', '/process-instances/migration', {
      filter: { processInstanceKey: { $in: more } },
      migrationPlan: { targetProcessDefinitionKey: v2, mappingInstructions: [] },
    });
    const migration = await ended(((await migrated.json()) as Batch).batchOperationKey);
    expect(migration).toMatchObject({ state: 'FAILED', operationsFailedCount: 2 });
    const items = await api.call('POST', '/batch-operation-items/search', {
      filter: { batchOperationKey: migration.batchOperationKey },
    });
    const failed = (await items.json()) as { items: { state: string; errorMessage: string }[] };
    expect(failed.items[0]!.errorMessage).toMatch(/active element "review" has no mapping instruction/);
  });

  it('should suspend, resume and cancel a batch, refusing a change its state does not allow', async () => {
    await deploy();
    await api.batches!.close();
    const keys = await started(3);
    await api.projection!.caughtUp();
    const made = await api.call('POST', '/process-instances/cancellation', {
      filter: { processDefinitionId: 'order' },
    });
    const { batchOperationKey } = (await made.json()) as Batch;

    expect((await api.call('POST', `/batch-operations/${batchOperationKey}/suspension`)).status).toBe(204);
    const resumedTwice = await api.call('POST', `/batch-operations/${batchOperationKey}/resumption`);
    expect(resumedTwice.status).toBe(204);
    expect((await api.call('POST', `/batch-operations/${batchOperationKey}/cancellation`)).status).toBe(204);
    const again = await api.call('POST', `/batch-operations/${batchOperationKey}/resumption`);

    expect(again.status).toBe(400);
    expect((await problemOf(again)).detail).toBe(
      `batch operation ${batchOperationKey} is CANCELED: it cannot be resumed`,
    );
    expect(await states(keys)).toEqual(keys.map(() => 'ACTIVE'));
    const items = await api.call('POST', '/batch-operation-items/search', { filter: { batchOperationKey } });
    expect(((await items.json()) as { items: { state: string }[] }).items.map((item) => item.state)).toEqual([
      'CANCELED',
      'CANCELED',
      'CANCELED',
    ]);
    expect((await api.call('GET', '/batch-operations/123')).status).toBe(404);
  });

  it('should resolve the incidents of every instance matched, the instances going on once the cause is fixed', async () => {
    await deploy(GATED);
    const keys: string[] = [];
    for (let n = 0; n < 3; n++) {
      const created = await api.call('POST', '/process-instances', {
        processDefinitionId: 'gated',
        variables: { go: false },
      });
      keys.push(((await created.json()) as { processInstanceKey: string }).processInstanceKey);
    }
    for (const { instanceId } of await api.engine.instances()) {
      await api.engine.settled(instanceId);
      await api.engine.setVariables(instanceId, { go: true });
    }
    await api.projection!.caughtUp();

    const made = await api.call('POST', '/process-instances/incident-resolution', { filter: { hasIncident: true } });
    const batch = await ended(((await made.json()) as Batch).batchOperationKey);

    expect(batch).toMatchObject({
      batchOperationType: 'RESOLVE_INCIDENT',
      state: 'COMPLETED',
      operationsCompletedCount: 3,
    });
    expect(await states(keys)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED']);
  });

  it('should refuse a batch whose request is wrong with a problem naming the field, making no batch', async () => {
    await deploy();
    const refusals: [string, unknown, RegExp][] = [
      ['/process-instances/cancellation', {}, /filter/],
      [
        '/process-instances/cancellation',
        { filter: { colour: 'red' } },
        /\$\.filter\.colour: not a field this search filters by/,
      ],
      ['/process-instances/modification', { filter: {}, moveInstructions: [] }, /moveInstructions/],
      [
        '/process-instances/migration',
        { filter: {}, migrationPlan: { targetProcessDefinitionKey: '123', mappingInstructions: [] } },
        /targetProcessDefinitionKey: no process definition with key 123/,
      ],
    ];
    for (const [path, body, detail] of refusals) {
      const response = await api.call('POST', path, body);
      expect(response.status, path).toBe(400);
      expect((await problemOf(response)).detail).toMatch(detail);
    }
    const found = await api.call('POST', '/batch-operations/search', {});
    expect(((await found.json()) as { items: unknown[] }).items).toEqual([]);
  });
});
