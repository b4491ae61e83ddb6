import { SearchProjection } from '@thresher/rest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Api, problemOf, serveApi } from './harness.js';
import { resources } from './models.js';

/** A process with one service task `charge` of type `payment`, which no in-process handler serves. */
const PAYMENT_BPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="defs-pay" targetNamespace="t">
  <bpmn:error id="declined" errorCode="DECLINED" />
  <bpmn:process id="pay" isExecutable="true">
    <bpmn:startEvent id="s" />
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="charge" />
    <bpmn:serviceTask id="charge">
      <bpmn:extensionElements>
        <zeebe:taskDefinition type="payment" retries="2" />
        <zeebe:taskHeaders><zeebe:header key="currency" value="EUR" /></zeebe:taskHeaders>
      </bpmn:extensionElements>
    </bpmn:serviceTask>
    <bpmn:boundaryEvent id="onDeclined" attachedToRef="charge"><bpmn:errorEventDefinition errorRef="declined" /></bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="charge" targetRef="e" />
    <bpmn:sequenceFlow id="f3" sourceRef="onDeclined" targetRef="declinedEnd" />
    <bpmn:endEvent id="e" />
    <bpmn:endEvent id="declinedEnd" />
  </bpmn:process>
</bpmn:definitions>`;

interface ActivatedJob {
  jobKey: string;
  processInstanceKey: string;
  elementInstanceKey: string;
  processDefinitionKey: string;
  type: string;
  retries: number;
  deadline: number;
  variables: Record<string, unknown>;
  customHeaders: Record<string, string>;
}

let api: Api;
beforeEach(async () => {
  api = await serveApi({ externalJobs: true, backoff: () => 0 });
  await fetch(`${api.server.url}/deployments`, { method: 'POST', body: resources({ 'pay.bpmn': PAYMENT_BPMN }) });
});
afterEach(async () => {
  await api.close();
  expect(api.failures).toEqual([]);
});

async function startPayment(variables: Record<string, unknown> = { amount: 12 }): Promise<string> {
  const response = await api.call('POST', '/process-instances', { processDefinitionId: 'pay', variables });
  return ((await response.json()) as { processInstanceKey: string }).processInstanceKey;
}

async function activate(body: Record<string, unknown> = {}): Promise<ActivatedJob[]> {
  const response = await api.call('POST', '/jobs/activation', {
    type: 'payment',
    worker: 'billing',
    timeout: 60_000,
    maxJobsToActivate: 10,
    requestTimeout: -1,
    ...body,
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { jobs: ActivatedJob[] }).jobs;
}

async function stateOf(processInstanceKey: string): Promise<string> {
  const response = await api.call('GET', `/process-instances/${processInstanceKey}`);
  return ((await response.json()) as { state: string }).state;
}

describe('POST /jobs/activation', () => {
  it("should activate a waiting job with its keys, variables, headers and deadline, as Zeebe's ActivatedJobResult", async () => {
    api.clock.pin(Date.UTC(2026, 11, 6));
    const instanceKey = await startPayment({ amount: 12, customer: 'c-1' });

    const [job, ...more] = await activate({ fetchVariable: ['amount'] });

    expect(more).toEqual([]);
    expect(job).toEqual({
      jobKey: expect.stringMatching(/^\d+$/),
      processInstanceKey: instanceKey,
      elementInstanceKey: expect.stringMatching(/^\d+$/),
      processDefinitionKey: expect.stringMatching(/^\d+$/),
      processDefinitionId: 'pay',
      processDefinitionVersion: 1,
      type: 'payment',
      elementId: 'charge',
      customHeaders: { currency: 'EUR' },
      worker: 'billing',
      retries: 2,
      deadline: Date.UTC(2026, 11, 6) + 60_000,
      variables: { amount: 12 },
      tenantId: '<default>',
      kind: 'BPMN_ELEMENT',
      listenerEventType: 'UNSPECIFIED',
    });
    expect(BigInt(job!.jobKey) >> 24n).toBe(BigInt(instanceKey) >> 24n);
    expect(await activate()).toEqual([]);
  });

  it('should wait for a job with a long poll and answer as soon as one is there', async () => {
    const waiting = activate({ requestTimeout: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const instanceKey = await startPayment();

    const jobs = await waiting;

    expect(jobs.map((job) => job.processInstanceKey)).toEqual([instanceKey]);
  });

  it('should refuse a bad activation with a 400 naming the field', async () => {
    for (const [body, field] of [
      [{ type: 'payment', timeout: 0, maxJobsToActivate: 1 }, '$.timeout'],
      [{ type: 'payment', timeout: 1000 }, '$.maxJobsToActivate'],
      [{ type: '', timeout: 1000, maxJobsToActivate: 1 }, '$.type'],
      [{ type: 'payment', timeout: 1000, maxJobsToActivate: 1, tenantIds: ['acme'] }, '$.tenantIds[0]'],
    ] as const) {
      const response = await api.call('POST', '/jobs/activation', body);
      const problem = await problemOf(response);
      expect(problem).toMatchObject({ status: 400, title: 'INVALID_ARGUMENT' });
      expect(problem.detail).toContain(field);
    }
  });
});

describe('POST /jobs/{jobKey}/completion', () => {
  it('should complete the job with its variables and let the instance run on', async () => {
    const instanceKey = await startPayment();
    const [job] = await activate();

    const response = await api.call('POST', `/jobs/${job!.jobKey}/completion`, { variables: { receipt: 'r-1' } });

    expect(response.status).toBe(204);
    expect(await stateOf(instanceKey)).toBe('COMPLETED');
    const again = await api.call('POST', `/jobs/${job!.jobKey}/completion`, {});
    expect(await problemOf(again)).toMatchObject({ status: 404, title: 'NOT_FOUND' });
  });

  it('should answer 404 for a key that names no job, 400 for one that is no key, changing nothing', async () => {
    const instanceKey = await startPayment();

    expect((await problemOf(await api.call('POST', '/jobs/999/completion', {}))).status).toBe(404);
    expect((await problemOf(await api.call('POST', `/jobs/${instanceKey}/completion`, {}))).status).toBe(404);
    expect((await problemOf(await api.call('POST', '/jobs/abc/completion', {}))).status).toBe(400);
    const bad = await api.call('POST', `/jobs/${BigInt(instanceKey) + 1n}/completion`, { variables: [1] });
    expect((await problemOf(bad)).detail).toContain('$.variables');
    expect(await stateOf(instanceKey)).toBe('ACTIVE');
  });

  it('should refuse an ad-hoc sub-process result by name', async () => {
    await startPayment();
    const [job] = await activate();

    const response = await api.call('POST', `/jobs/${job!.jobKey}/completion`, {
      result: { type: 'adHocSubProcess', activateElements: [] },
    });

    expect((await problemOf(response)).detail).toContain('adHocSubProcess');
  });
});

describe('POST /jobs/{jobKey}/failure', () => {
  it('should make the job activatable again after its backoff, then an incident when no retries are left', async () => {
    const instanceKey = await startPayment();
    const [job] = await activate();

    const failed = await api.call('POST', `/jobs/${job!.jobKey}/failure`, {
      retries: 1,
      retryBackOff: 1_000,
      errorMessage: 'declined by bank',
    });
    expect(failed.status).toBe(204);
    expect(await activate()).toEqual([]);
    api.clock.pin(api.clock.now() + 1_000);
    const [retry] = await activate();
    expect(retry).toMatchObject({ jobKey: job!.jobKey, retries: 1 });

    await api.call('POST', `/jobs/${job!.jobKey}/failure`, { retries: 0, errorMessage: 'declined for good' });

    const view = await api.engine.instance((await api.engine.instances())[0]!.instanceId);
    expect(view?.incidents.map((incident) => incident.message)).toEqual([expect.stringContaining('declined for good')]);
    const completion = await api.call('POST', `/jobs/${job!.jobKey}/completion`, {});
    expect(await problemOf(completion)).toMatchObject({ status: 409, title: 'INVALID_STATE' });
    expect(await stateOf(instanceKey)).toBe('ACTIVE');
  });
});

describe('POST /jobs/{jobKey}/error', () => {
  it('should throw a BPMN error the boundary catches', async () => {
    const instanceKey = await startPayment();
    const [job] = await activate();

    const response = await api.call('POST', `/jobs/${job!.jobKey}/error`, {
      errorCode: 'DECLINED',
      variables: { reason: 'limit' },
    });

    expect(response.status).toBe(204);
    expect(await stateOf(instanceKey)).toBe('COMPLETED');
    const missing = await api.call('POST', `/jobs/${job!.jobKey}/error`, {});
    expect((await problemOf(missing)).detail).toContain('$.errorCode');
  });
});

describe('PATCH /jobs/{jobKey}', () => {
  it("should set the job's retries and move its lock, and refuse a timeout for a job no worker holds", async () => {
    await startPayment();
    const [job] = await activate();

    const updated = await api.call('PATCH', `/jobs/${job!.jobKey}`, { changeset: { retries: 5, timeout: 120_000 } });
    expect(updated.status).toBe(204);
    api.clock.pin(api.clock.now() + 90_000);
    expect(await activate()).toEqual([]);
    api.clock.pin(api.clock.now() + 30_000);
    const [again] = await activate({ timeout: 1_000 });
    expect(again?.retries).toBe(5);

    api.clock.pin(api.clock.now() + 1_000);
    const late = await api.call('PATCH', `/jobs/${job!.jobKey}`, { changeset: { timeout: 1_000 } });
    expect(await problemOf(late)).toMatchObject({ status: 409 });
    const empty = await api.call('PATCH', `/jobs/${job!.jobKey}`, { changeset: {} });
    expect((await problemOf(empty)).status).toBe(400);
  });
});

describe('POST /jobs/search', () => {
  async function jobs(filter: Record<string, unknown>): Promise<Record<string, unknown>[]> {
    for (const { instanceId } of await api.engine.instances()) await api.engine.settled(instanceId);
    await api.projection!.caughtUp();
    const response = await api.call('POST', '/jobs/search', { filter, sort: [{ field: 'processInstanceKey' }] });
    expect(response.status).toBe(200);
    return ((await response.json()) as { items: Record<string, unknown>[] }).items;
  }

  it('should find open, failed, completed, error-thrown and canceled jobs by state, type and instance', async () => {
    const [open, failing, done, declined, canceled] = [
      await startPayment(),
      await startPayment(),
      await startPayment(),
      await startPayment(),
      await startPayment(),
    ];
    const byInstance = new Map((await activate()).map((job) => [job.processInstanceKey, job]));
    await api.call('POST', `/jobs/${byInstance.get(failing)!.jobKey}/failure`, {
      retries: 1,
      retryBackOff: 60_000,
      errorMessage: 'bank down',
    });
    await api.call('POST', `/jobs/${byInstance.get(done)!.jobKey}/completion`, {});
    await api.call('POST', `/jobs/${byInstance.get(declined)!.jobKey}/error`, { errorCode: 'DECLINED' });
    await api.call('POST', `/process-instances/${canceled}/cancellation`, {});

    const all = await jobs({ type: 'payment' });
    expect(all.map((job) => [job.processInstanceKey, job.state])).toEqual([
      [open, 'CREATED'],
      [failing, 'FAILED'],
      [done, 'COMPLETED'],
      [declined, 'ERROR_THROWN'],
      [canceled, 'CANCELED'],
    ]);
    expect(all[0]).toMatchObject({
      jobKey: byInstance.get(open)!.jobKey,
      kind: 'BPMN_ELEMENT',
      listenerEventType: 'UNSPECIFIED',
      retries: 2,
      customHeaders: { currency: 'EUR' },
      elementId: 'charge',
      elementInstanceKey: byInstance.get(open)!.elementInstanceKey,
      processDefinitionKey: byInstance.get(open)!.processDefinitionKey,
    });
    expect(all[1]).toMatchObject({ retries: 1, hasFailedWithRetriesLeft: true, errorMessage: 'bank down' });
    expect(all[2]).toMatchObject({ endTime: expect.any(String) });
    const failed = await jobs({ state: { $in: ['FAILED', 'ERROR_THROWN'] } });
    expect(failed.map((job) => job.processInstanceKey)).toEqual([failing, declined]);
  });

  it('should keep a job that came and went between two reads of the log', async () => {
    await api.projection!.close();
    const instance = await startPayment();
    const [job] = await activate();
    await api.call('POST', `/jobs/${job!.jobKey}/completion`, {});
    expect(await stateOf(instance)).toBe('COMPLETED');
    // Read from where the first one stopped: the job's dispatch and completion in one batch.
    const later = new SearchProjection(api.engine, api.repository);
    await later.caughtUp();
    await later.close();
    const found = await jobs({ processInstanceKey: instance });
    expect(found).toEqual([
      expect.objectContaining({ jobKey: job!.jobKey, state: 'COMPLETED', elementInstanceKey: job!.elementInstanceKey }),
    ]);
  });

  it('should refuse a field it does not filter by, naming it', async () => {
    const response = await api.call('POST', '/jobs/search', { filter: { color: 'red' } });
    expect(await problemOf(response)).toMatchObject({ status: 400, detail: expect.stringContaining('$.filter.color') });
  });
});
