import { createMemoryRepository, type Repository } from '@thresher/checkpoint';
import { VirtualClock } from '@thresher/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError, InvalidStateError, NotFoundError } from '../src/common/errors.js';
import { Engine, type EngineOptions } from '../src/index.js';
import { bpmn, chain, ext, withRoots } from './fixtures/bpmn/xml.js';

const MINUTE = 60_000;

/** A service task `charge` of type `payment` with a header, between a start and an end. */
const CHARGE = bpmn(`<bpmn:startEvent id="start" />
  <bpmn:serviceTask id="charge" name="Charge">${ext(
    '<zeebe:taskDefinition type="payment" retries="3" /><zeebe:taskHeaders><zeebe:header key="currency" value="EUR" /></zeebe:taskHeaders>',
  )}</bpmn:serviceTask>
  <bpmn:endEvent id="end" />
  ${chain('start', 'charge', 'end')}`);

const engines: Engine[] = [];

afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.close()));
});

function externalEngine(repository: Repository, clock: VirtualClock, options: Partial<EngineOptions> = {}): Engine {
  const engine = new Engine({ repository, clock: clock.view(), externalJobs: true, backoff: () => 0, ...options });
  engines.push(engine);
  return engine;
}

async function started(xml = CHARGE, variables = { amount: 12, customer: 'c-1' }) {
  const clock = new VirtualClock();
  const repository = createMemoryRepository();
  const engine = externalEngine(repository, clock);
  await engine.deploy(xml);
  const instanceId = await engine.start('p', { variables });
  await engine.settled(instanceId);
  return { clock, repository, engine, instanceId };
}

const activation = { type: 'payment', worker: 'billing', timeout: MINUTE, maxJobs: 10 };

describe('external jobs', () => {
  it('should leave a job with no handler waiting for a worker, who activates it with its variables, headers and lock', async () => {
    const { clock, engine, instanceId } = await started();

    const [job, ...more] = await engine.activateJobs(activation);

    expect(more).toEqual([]);
    expect(job).toMatchObject({
      id: `${instanceId}/${job!.jobId}`,
      instanceId,
      processId: 'p',
      elementId: 'charge',
      elementName: 'Charge',
      taskType: 'payment',
      headers: { currency: 'EUR' },
      variables: { amount: 12, customer: 'c-1' },
      retries: 3,
      attempt: 1,
      worker: 'billing',
      deadline: clock.now() + MINUTE,
    });
    const settled = await engine.settled(instanceId);
    expect(settled.status === 'waiting' && settled.jobs).toEqual([
      { elementId: 'charge', jobId: job!.id, taskType: 'payment', attempt: 1, retries: 3, notBefore: null },
    ]);
  });

  it('should complete the instance with the variables a worker completes its job with', async () => {
    const { engine, instanceId } = await started();
    const [job] = await engine.activateJobs(activation);

    await engine.completeJob(job!.id, { receipt: 'r-9' });

    expect(await engine.settled(instanceId)).toEqual({ instanceId, status: 'completed' });
    expect((await engine.instance(instanceId))?.variables).toMatchObject({ receipt: 'r-9' });
    expect(await engine.activateJobs(activation)).toEqual([]);
  });

  it('should hand a locked job to no other worker until its lock expires, then to the next', async () => {
    const { clock, engine } = await started();
    await engine.activateJobs(activation);

    expect(await engine.activateJobs({ ...activation, worker: 'other' })).toEqual([]);
    clock.advance(MINUTE);
    const [again] = await engine.activateJobs({ ...activation, worker: 'other' });

    expect(again).toMatchObject({ worker: 'other', attempt: 1 });
  });

  it('should give only the variables asked for with fetchVariables', async () => {
    const { engine } = await started();

    const [job] = await engine.activateJobs({ ...activation, fetchVariables: ['customer', 'missing'] });

    expect(job!.variables).toEqual({ customer: 'c-1' });
  });

  it('should make a failed job activatable again after its backoff, with the retries the worker left', async () => {
    const { clock, engine } = await started();
    const [job] = await engine.activateJobs(activation);

    await engine.failJob(job!.id, { retries: 1, retryBackOff: 5_000, errorMessage: 'card declined' });

    expect(await engine.activateJobs(activation)).toEqual([]);
    clock.advance(5_000);
    const [retry] = await engine.activateJobs(activation);
    expect(retry).toMatchObject({ id: job!.id, attempt: 2, retries: 1 });
  });

  it('should raise an incident when a job fails with no retries left, and refuse to complete it', async () => {
    const { engine, instanceId } = await started();
    const [job] = await engine.activateJobs(activation);

    await engine.failJob(job!.id, { retries: 0, errorMessage: 'card declined' });

    const settled = await engine.settled(instanceId);
    expect(settled.status === 'waiting' && settled.incidents.map((incident) => incident.message)).toEqual([
      expect.stringContaining('card declined'),
    ]);
    await expect(engine.completeJob(job!.id, {})).rejects.toBeInstanceOf(InvalidStateError);
    expect(await engine.activateJobs(activation)).toEqual([]);
  });

  it('should let a BPMN error a worker throws be caught by a boundary, with its variables', async () => {
    const xml = withRoots(
      '<bpmn:error id="declined" errorCode="DECLINED" />',
      `<bpmn:startEvent id="start" />
      <bpmn:serviceTask id="charge">${ext('<zeebe:taskDefinition type="payment" />')}</bpmn:serviceTask>
      <bpmn:boundaryEvent id="onDeclined" attachedToRef="charge"><bpmn:errorEventDefinition errorRef="declined" /></bpmn:boundaryEvent>
      <bpmn:endEvent id="end" /><bpmn:endEvent id="declinedEnd" />
      ${chain('start', 'charge', 'end')}${chain('onDeclined', 'declinedEnd')}`,
    );
    const { engine, instanceId } = await started(xml);
    const [job] = await engine.activateJobs(activation);

    await engine.throwJobError(job!.id, { errorCode: 'DECLINED', variables: { reason: 'limit' } });

    expect(await engine.settled(instanceId)).toEqual({ instanceId, status: 'completed' });
    const view = await engine.instance(instanceId);
    expect(view?.history.map((entry) => entry.node)).toContain('declinedEnd');
    expect(view?.variables).toMatchObject({ reason: 'limit' });
  });

  it('should answer a waiting activation as soon as a job of its type is queued', async () => {
    const clock = new VirtualClock();
    const engine = externalEngine(createMemoryRepository(), clock);
    await engine.deploy(CHARGE);

    const waiting = engine.activateJobs({ ...activation, requestTimeout: 10_000 });
    const instanceId = await engine.start('p', { variables: { amount: 1 } });

    const [job] = await waiting;
    expect(job?.instanceId).toBe(instanceId);
  });

  it('should answer an activation that waited its requestTimeout out with no jobs', async () => {
    const { engine } = await started();
    await engine.activateJobs(activation);

    expect(await engine.activateJobs({ ...activation, requestTimeout: 30 })).toEqual([]);
  });

  it('should keep the lock and complete by the same id after the engine that activated the job stopped', async () => {
    const { clock, repository, engine, instanceId } = await started();
    const [job] = await engine.activateJobs(activation);
    await engine.close();

    const next = externalEngine(repository, clock);
    await next.recover();
    expect(await next.activateJobs({ ...activation, worker: 'other' })).toEqual([]);
    await next.completeJob(job!.id, { receipt: 'after-restart' });

    expect(await next.settled(instanceId)).toEqual({ instanceId, status: 'completed' });
  });

  it('should let a dehydrating engine park an instance whose job waits for a worker, and restore it to complete', async () => {
    const clock = new VirtualClock();
    const engine = externalEngine(createMemoryRepository(), clock, { dehydrate: true });
    await engine.deploy(CHARGE);
    const instanceId = await engine.start('p');
    await engine.settled(instanceId);

    const [job] = await engine.activateJobs(activation);
    await engine.completeJob(job!.id, {});

    expect(await engine.settled(instanceId)).toEqual({ instanceId, status: 'completed' });
  });

  it("should move an activated job's lock with updateJob, and refuse it for a job no worker holds", async () => {
    const { clock, engine } = await started();
    const [job] = await engine.activateJobs(activation);

    clock.advance(30_000);
    await engine.updateJob(job!.id, { timeout: 2 * MINUTE, retries: 7 });
    clock.advance(MINUTE);

    expect(await engine.activateJobs(activation)).toEqual([]);
    clock.advance(MINUTE);
    const [again] = await engine.activateJobs(activation);
    expect(again?.retries).toBe(7);
    clock.advance(2 * MINUTE);
    await expect(engine.updateJob(job!.id, { timeout: MINUTE })).rejects.toBeInstanceOf(InvalidStateError);
    await expect(engine.updateJob(job!.id, { retries: 0 })).rejects.toBeInstanceOf(InvalidArgumentError);
  });

  it('should refuse a job id that names no job, and a job an in-process handler runs', async () => {
    const { engine, instanceId } = await started();

    await expect(engine.completeJob(`${instanceId}/j999`)).rejects.toBeInstanceOf(NotFoundError);
    await expect(engine.completeJob('no-slash')).rejects.toBeInstanceOf(NotFoundError);
    await expect(engine.failJob('nowhere/j1', { retries: 1 })).rejects.toBeInstanceOf(NotFoundError);
    const [job] = await engine.activateJobs(activation);
    engine.handle('payment', () => ({}));
    await expect(engine.completeJob(job!.id)).rejects.toBeInstanceOf(InvalidStateError);
  });

  it('should refuse bad activations by name', async () => {
    const { engine } = await started();

    for (const bad of [{ type: '' }, { timeout: 0 }, { maxJobs: 0 }, { requestTimeout: -1 }]) {
      await expect(engine.activateJobs({ ...activation, ...bad })).rejects.toBeInstanceOf(InvalidArgumentError);
    }
  });

  it("should complete a task listener's job with a result, and refuse variables or a result it cannot take, the job left waiting", async () => {
    const xml = bpmn(`<bpmn:startEvent id="start" />
      <bpmn:userTask id="review">${ext(
        '<zeebe:userTask /><zeebe:taskListeners><zeebe:taskListener eventType="creating" type="audit" /></zeebe:taskListeners>',
      )}</bpmn:userTask>
      <bpmn:endEvent id="end" />
      ${chain('start', 'review', 'end')}`);
    const { engine, instanceId } = await started(xml);
    const [job] = await engine.activateJobs({ ...activation, type: 'audit' });

    await expect(engine.completeJob(job!.id, { a: 1 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(engine.completeJob(job!.id, {}, { result: { denied: true } })).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
    await engine.completeJob(job!.id, {}, { result: { corrections: { priority: 80 } } });

    const settled = await engine.settled(instanceId);
    expect(settled.status === 'waiting' && settled.userTasks.map((task) => task.priority)).toEqual([80]);
  });
});
