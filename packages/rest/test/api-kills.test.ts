import { createMemoryRepository, type Repository } from '@thresher/checkpoint';
import { KillSwitch } from '@thresher/testing';
import { describe, expect, it } from 'vitest';
import { externalKey, instanceKey } from '../src/keys.js';
import { type Api, serveApi } from './harness.js';
import { resources } from './models.js';

const LOCK_MS = 60_000;
const BACKOFF_MS = 1_000;

/** Charged by a worker (which fails the first attempt with a backoff), paid by a message, approved by a person. */
const ORDER = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="defs-api-order" targetNamespace="t">
  <bpmn:message id="m-paid" name="paid"><bpmn:extensionElements><zeebe:subscription correlationKey="=orderId" /></bpmn:extensionElements></bpmn:message>
  <bpmn:process id="api-order" isExecutable="true">
    <bpmn:startEvent id="s" />
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="charge" />
    <bpmn:serviceTask id="charge"><bpmn:extensionElements><zeebe:taskDefinition type="charge" retries="3" /></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="charge" targetRef="paid" />
    <bpmn:receiveTask id="paid" messageRef="m-paid" />
    <bpmn:sequenceFlow id="f3" sourceRef="paid" targetRef="approve" />
    <bpmn:userTask id="approve" />
    <bpmn:sequenceFlow id="f4" sourceRef="approve" targetRef="e" />
    <bpmn:endEvent id="e" />
  </bpmn:process>
</bpmn:definitions>`;

async function json(response: Response): Promise<Record<string, unknown>> {
  if (response.status >= 500) throw new Error(`the server failed: ${response.status} ${await response.text()}`);
  return response.status === 204 ? {} : ((await response.json()) as Record<string, unknown>);
}

/**
 * A client of the API alone, as a real one runs: it deploys and creates the instance (unless the store has it),
 * then each round works the charge job (failing its first attempt), publishes the payment while the instance waits
 * for it, and completes the approval, until the instance has ended. It keeps nothing between rounds but the
 * instance's key, so after a kill it goes on from whatever the store says.
 */
async function drive(api: Api, known: { key?: string }): Promise<void> {
  await json(
    await fetch(`${api.server.url}/deployments`, { method: 'POST', body: resources({ 'order.bpmn': ORDER }) }),
  );
  if (known.key === undefined && (await api.engine.instances()).length === 0) {
    const created = await api.call('POST', '/process-instances', {
      processDefinitionId: 'api-order',
      variables: { orderId: 'o-1', total: 30 },
    });
    known.key = String((await json(created)).processInstanceKey);
  }
  for (let round = 0; round < 12; round++) {
    const [summary] = await api.engine.instances();
    // Created before the kill, its answer lost: the key is the store's serial's, as every server derives it.
    known.key ??= instanceKey(summary!.serial);
    const settled = await api.engine.settled(summary!.instanceId);
    if (settled.status !== 'waiting') return;
    const activated = await api.call('POST', '/jobs/activation', {
      type: 'charge',
      worker: 'w',
      timeout: LOCK_MS,
      maxJobsToActivate: 1,
      requestTimeout: -1,
    });
    for (const job of (await json(activated)).jobs as Array<{ jobKey: string; retries: number }>) {
      const response =
        job.retries === 3
          ? await api.call('POST', `/jobs/${job.jobKey}/failure`, {
              retries: 2,
              retryBackOff: BACKOFF_MS,
              errorMessage: 'card busy',
            })
          : await api.call('POST', `/jobs/${job.jobKey}/completion`, { variables: { charged: true } });
      await json(response);
    }
    if (settled.subscriptions.some((subscription) => subscription.name === 'paid')) {
      const published = await api.call('POST', '/messages/publication', {
        name: 'paid',
        correlationKey: 'o-1',
        variables: { amount: 30 },
        messageId: 'pay-o-1',
        timeToLive: LOCK_MS,
      });
      // Published before the kill and still buffered: the instance takes it on its own.
      if (published.status !== 409) await json(published);
    }
    for (const task of settled.userTasks) {
      const taskKey = externalKey(summary!.serial, task.id);
      await json(await api.call('POST', `/user-tasks/${taskKey}/completion`, { variables: { approved: true } }));
    }
    api.clock.pin(api.clock.now() + BACKOFF_MS);
  }
  throw new Error('the instance did not end in 12 rounds');
}

/** The scenario on a store that dies at its `killAt`-th write; after a kill, another server takes it up. */
async function run(killAt: number) {
  const repository: Repository = createMemoryRepository();
  const store = new KillSwitch(repository, killAt);
  const first = await serveApi({ externalJobs: true, backoff: () => 0 }, { repository: store, projection: false });
  const known: { key?: string } = {};
  let dead = false;
  const killed = store.killed.then(() => {
    dead = true;
    return 'killed' as const;
  });
  // A request under way when the store died fails with it (a 500, a closed socket): the client stops there.
  const driving = drive(first, known).then(
    () => 'done' as const,
    (error: unknown) => {
      if (dead) return 'killed' as const;
      throw error;
    },
  );
  const outcome = await Promise.race([driving, killed]);
  driving.catch(() => {});
  let api = first;
  if (outcome === 'killed') {
    await first.server.close(0);
    api = await serveApi({ externalJobs: true, backoff: () => 0 }, { repository, projection: false });
    // The dead server's locks lapse with its clock's time, as a real one's do.
    api.clock.pin(first.clock.now() + LOCK_MS);
    expect((await api.engine.recover()).failed).toEqual([]);
    await drive(api, known);
  }
  const [summary] = await api.engine.instances();
  const view = await api.engine.instance(summary!.instanceId);
  const state = await json(await api.call('GET', `/process-instances/${known.key}`));
  await api.close();
  return { outcome, writes: store.writes, status: view?.status, state: state.state, variables: view?.variables };
}

describe('an instance driven only through the API, killed at every persist point', () => {
  it('should end as the uninterrupted run does, the client going on by the keys it was given', async () => {
    const baseline = await run(Number.POSITIVE_INFINITY);
    expect(baseline).toMatchObject({ outcome: 'done', status: 'completed', state: 'COMPLETED' });
    expect(baseline.variables).toEqual({ orderId: 'o-1', total: 30, charged: true, amount: 30, approved: true });
    expect(baseline.writes).toBeGreaterThanOrEqual(12);

    for (let killAt = 1; killAt <= baseline.writes; killAt++) {
      const killed = await run(killAt);
      expect({ killAt, outcome: killed.outcome, status: killed.status, variables: killed.variables }).toEqual({
        killAt,
        outcome: 'killed',
        status: 'completed',
        variables: baseline.variables,
      });
    }
  });
});
