import { readFileSync } from 'node:fs';
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  type DataPoint,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { createMemoryRepository, openCheckpoint, type Repository } from '@thresher/checkpoint';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../src/engine.js';
import type { Handlers, Job } from '../src/index.js';
import { bpmn, chain, ext } from './fixtures/bpmn/xml.js';

/** start → service task `work` → user task `review` → end. */
const model = bpmn(`<bpmn:startEvent id="start" />
  <bpmn:serviceTask id="work">${ext('<zeebe:taskDefinition type="work" retries="2" />')}</bpmn:serviceTask>
  <bpmn:userTask id="review" />
  <bpmn:endEvent id="end" />
  ${chain('start', 'work', 'review', 'end')}`);

/** A reader the test collects from when it asks. */
class TestReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

const spans = new InMemorySpanExporter();
const reader = new TestReader();
const engines: Engine[] = [];

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
});
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
  spans.reset();
});
afterAll(() => {
  trace.disable();
  metrics.disable();
  context.disable();
});

function engineOn(repository: Repository, handlers: Handlers): Engine {
  const engine = new Engine({ repository, handlers, backoff: () => 0 });
  engines.push(engine);
  return engine;
}

async function reviewed(engine: Engine, instanceId: string): Promise<void> {
  const waiting = await engine.settled(instanceId);
  if (waiting.status !== 'waiting') throw new Error(`expected the review, got ${waiting.status}`);
  await engine.completeUserTask(waiting.userTasks[0]!.id, { ok: true });
  await engine.settled(instanceId);
}

const named = (name: string) => spans.getFinishedSpans().filter((span) => span.name === name);
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

/** The data points of a metric, by name, from what the reader collects now. */
async function points(name: string): Promise<DataPoint<unknown>[]> {
  const { resourceMetrics }: { resourceMetrics: ResourceMetrics } = await reader.collect();
  return resourceMetrics.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .filter((metric) => metric.descriptor.name === name)
    .flatMap((metric) => metric.dataPoints as DataPoint<unknown>[]);
}

describe('OpenTelemetry', () => {
  it("should trace an instance, its element runs and its jobs, the handler inside its job's span with its trace context", async () => {
    // given a handler that notes the span it runs in
    const seen: { active?: string; job?: Job } = {};
    const engine = engineOn(createMemoryRepository(), {
      work: (job) => {
        seen.active = trace.getActiveSpan()?.spanContext().spanId;
        seen.job = job;
        return { done: true };
      },
    });
    await engine.deploy(model);

    // when an instance runs to its end
    const id = await engine.start('p', { businessKey: 'order-7' });
    await reviewed(engine, id);

    // then its spans nest: instance → element → job, with the BPMN ids as attributes
    const [instance] = named('instance p');
    const [work] = named('element work');
    const [job] = named('job work');
    expect(instance?.attributes).toMatchObject({
      'thresher.instance.id': id,
      'bpmn.process.id': 'p',
      'thresher.business_key': 'order-7',
      'thresher.instance.outcome': 'completed',
    });
    expect(parentOf(work!)).toBe(instance!.spanContext().spanId);
    expect(work!.attributes).toMatchObject({ 'bpmn.element.id': 'work', 'thresher.instance.id': id });
    expect(parentOf(job!)).toBe(work!.spanContext().spanId);
    expect(job!.attributes).toMatchObject({ 'thresher.job.type': 'work', 'thresher.job.attempt': 1 });
    expect(named('element review')).toHaveLength(1);
    // the handler ran inside its job's span and was handed its trace context
    expect(seen.active).toBe(job!.spanContext().spanId);
    expect(seen.job?.traceContext).toBe(`00-${job!.spanContext().traceId}-${job!.spanContext().spanId}-01`);
    for (const span of spans.getFinishedSpans())
      expect(span.spanContext().traceId).toBe(instance!.spanContext().traceId);
  });

  it("should join the caller's trace, keep the trace context in the checkpoint, and continue the trace after a restore elsewhere", async () => {
    // given an instance started under a caller's trace, parked at its review by an engine that closes
    const repository = createMemoryRepository();
    const first = engineOn(repository, { work: () => ({}) });
    await first.deploy(model);
    const caller = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const id = await first.start('p', { traceContext: caller });
    await first.settled(id);
    await first.close();
    const [opened] = named('instance p');
    const { body } = openCheckpoint((await repository.get(id))!.bytes, { instanceId: id });

    // when another engine completes the review
    spans.reset();
    const second = engineOn(repository, {});
    await second.completeUserTask((await second.userTasks({ instanceId: id }))[0]!.id, {});
    await second.settled(id);

    // then the caller's trace holds both engines' spans, the second's under the instance's first span
    expect(opened!.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(parentOf(opened!)).toBe('b7ad6b7169203331');
    expect(body.instance.traceContext).toBe(`00-0af7651916cd43dd8448eb211c80319c-${opened!.spanContext().spanId}-01`);
    const [resumed] = named('instance p');
    expect(resumed!.attributes).toMatchObject({ 'thresher.instance.resumed': true });
    expect(resumed!.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(parentOf(resumed!)).toBe(opened!.spanContext().spanId);
    expect(named('element end')[0]?.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
  });

  it('should record retries and incidents as span events and failures on the job spans', async () => {
    const engine = engineOn(createMemoryRepository(), {
      work: () => {
        throw new Error('service down');
      },
    });
    await engine.deploy(model);

    const id = await engine.start('p');
    const state = await engine.settled(id);

    expect(state.status === 'waiting' && state.incidents).toHaveLength(1);
    const jobs = named('job work');
    expect(jobs.map((span) => span.attributes['thresher.job.attempt'])).toEqual([1, 2]);
    for (const span of jobs) {
      expect(span.status).toMatchObject({ code: 2, message: 'service down' });
      expect(span.events.map((event) => event.name)).toContain('exception');
    }
    await engine.close();
    const [work] = named('element work');
    expect(work!.events.map((event) => event.name)).toEqual(['retry', 'retry', 'incident']);
    expect(work!.status).toMatchObject({ code: 2, message: expect.stringContaining('service down') });
  });

  it('should count instances, jobs, incidents, leases and checkpoint writes', async () => {
    const engine = engineOn(createMemoryRepository(), { work: () => ({}) });
    await engine.deploy(model);
    const before = {
      started: await sum('thresher.instances.started'),
      completed: await sum('thresher.instances.completed'),
      jobs: await sum('thresher.jobs'),
      writes: await count('thresher.checkpoint.write.duration'),
    };

    const id = await engine.start('p');
    await reviewed(engine, id);

    expect(await sum('thresher.instances.started')).toBe(before.started + 1);
    expect(await sum('thresher.instances.completed')).toBe(before.completed + 1);
    expect(await sum('thresher.jobs')).toBe(before.jobs + 1);
    expect(await count('thresher.checkpoint.write.duration')).toBeGreaterThan(before.writes + 1);
    expect(await count('thresher.checkpoint.size')).toBe(await count('thresher.checkpoint.write.duration'));
    expect(await sum('thresher.lease.claims')).toBeGreaterThan(0);
    expect(await count('thresher.job.duration')).toBeGreaterThan(0);
  });

  it('should count an instance whose loop stopped on a fault, and a lease another engine took', async () => {
    const failedBefore = await sum('thresher.instances.failed');
    const lostBefore = await sum('thresher.lease.losses');
    // given one instance whose store fails its next write, and one whose lease another engine takes
    const failing = createMemoryRepository();
    let puts = 0;
    const breaking: Repository = Object.assign(Object.create(failing) as Repository, {
      put: (checkpoint: Parameters<Repository['put']>[0]) => {
        if (++puts > 1) return Promise.reject(new Error('disk gone'));
        return failing.put(checkpoint);
      },
    });
    const broken = engineOn(breaking, { work: () => ({}) });
    await broken.deploy(model);
    const repository = createMemoryRepository();
    const held = engineOn(repository, { work: () => ({}) });
    await held.deploy(model);
    const id = await held.start('p');
    const waiting = await held.settled(id);
    if (waiting.status !== 'waiting') throw new Error('expected the review');
    await repository.claim({ owner: 'another', ttlMs: 60_000, now: Date.now(), limit: 1, takeOver: [held.owner] });

    // when each writes
    await broken
      .start('p')
      .then((started) => broken.settled(started))
      .catch(() => {});
    await held.completeUserTask(waiting.userTasks[0]!.id, {}).catch(() => {});

    // then one failed instance and one lost lease are counted
    expect(await sum('thresher.instances.failed')).toBe(failedBefore + 1);
    expect(await sum('thresher.lease.losses')).toBe(lostBefore + 1);
  });

  it('should count loop warnings by process and element, not incidents', async () => {
    // given an engine that warns past 3 entries, and a model that polls 8 times
    const poll = readFileSync(new URL('../../../fixtures/long-lived/poll.bpmn', import.meta.url), 'utf8');
    const engine = new Engine({
      repository: createMemoryRepository(),
      handlers: { 'poll-supplier': ({ variables }: Job) => ({ polls: Number(variables.polls) + 1 }) },
      loopWarning: 3,
    });
    engines.push(engine);
    await engine.deploy(poll);
    const before = await points('thresher.element.looping');

    // when it polls past the warning: warned at the 4th and the 7th entry of each element
    const id = await engine.start('supplier-poll', { variables: { limit: 8, polls: 0 } });
    expect((await engine.settled(id)).status).toBe('completed');

    // then each warning is counted under its element, and none is an incident
    const sum = (found: DataPoint<unknown>[], element: string) =>
      found
        .filter((point) => point.attributes['bpmn.element.id'] === element)
        .reduce((total, point) => total + Number(point.value), 0);
    const after = await points('thresher.element.looping');
    const counted = (element: string) => sum(after, element) - sum(before, element);
    expect([counted('ask'), counted('check')]).toEqual([2, 2]);
    expect((await engine.instance(id))?.incidents).toEqual([]);
  });

  it('should refuse a trace context that is not a W3C traceparent', async () => {
    const engine = engineOn(createMemoryRepository(), {});
    await engine.deploy(model);

    for (const traceContext of ['', 'nonsense', '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01']) {
      await expect(engine.start('p', { traceContext })).rejects.toMatchObject({ code: 'THRESHER_INVALID_ARGUMENT' });
    }
    expect(await engine.instances()).toEqual([]);
  });
});

describe('OpenTelemetry without an SDK', () => {
  it('should keep no trace context and open no span', async () => {
    trace.disable();
    try {
      const repository = createMemoryRepository();
      const engine = engineOn(repository, { work: () => ({}) });
      await engine.deploy(model);
      const id = await engine.start('p');
      await engine.settled(id);

      const { body } = openCheckpoint((await repository.get(id))!.bytes, { instanceId: id });
      expect(body.instance).not.toHaveProperty('traceContext');
      expect(spans.getFinishedSpans()).toEqual([]);
    } finally {
      trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
    }
  });
});

async function sum(name: string): Promise<number> {
  return (await points(name)).reduce((total, point) => total + (point.value as number), 0);
}

async function count(name: string): Promise<number> {
  return (await points(name)).reduce((total, point) => total + (point.value as { count: number }).count, 0);
}
