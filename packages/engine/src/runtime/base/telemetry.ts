/**
 * OpenTelemetry, through `@opentelemetry/api` only: with no SDK registered every call is a no-op, and an
 * instance whose span does not record (no SDK, or sampled out) opens no element or job spans at all.
 *
 * Spans: one per instance's stay in an engine (under the trace context the instance keeps in its record, so
 * a restore elsewhere continues the same trace), one per element run (entered → left) and one per job, the
 * handler running inside it. Metrics: see {@link Telemetry}'s instruments.
 *
 * @module
 */
import {
  type Attributes,
  type Context,
  type Counter,
  context,
  createNoopMeter,
  type Histogram,
  metrics,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { InstanceRecord, JobRecord } from '@thresher/checkpoint';
import type { EngineEvent } from '../../common/events.js';

const SCOPE = '@thresher/engine';

/** What the global tracer provider delegates to while no SDK is registered. */
const NO_TRACING = new ProxyTracerProvider().getDelegate();
/** The class of the meter a process without an SDK hands out. */
const NoopMeter = createNoopMeter().constructor;

/** Whether an SDK's tracer provider is registered now (one may be registered after the engine is made). */
function tracing(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NO_TRACING;
}

/** `00-<trace id>-<span id>-<flags>`: the W3C `traceparent` of a span context. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The W3C `traceparent` of a span. */
export function traceparentOf(span: Span): string {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`;
}

/** A context whose remote parent is the span a `traceparent` names; undefined for anything else. */
export function contextOf(traceparent: string | undefined): Context | undefined {
  const parts = traceparent === undefined ? null : TRACEPARENT.exec(traceparent.trim().toLowerCase());
  if (parts === null) return undefined;
  const [, traceId, spanId, flags] = parts as unknown as [string, string, string, string];
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16),
    isRemote: true,
  });
}

/** Whether a `traceparent` is one {@link contextOf} reads. */
export function isTraceparent(value: string): boolean {
  return contextOf(value) !== undefined;
}

/** An instance's spans in this engine: its own, and its elements' open ones by track. */
interface InstanceSpans {
  span: Span;
  context: Context;
  attributes: Attributes;
  elements: Map<string, { span: Span; elementId: string }>;
}

/** What a job's span and the instruments need of the job's handler call. */
export interface JobCall {
  attempt: number;
}

/** The outcome a job span and the job instruments record. */
export type JobOutcome = { result: unknown } | { error: string };

/**
 * The engine's telemetry: one per engine. Instruments (meter `@thresher/engine`): counters
 * `thresher.instances.started|completed|terminated|failed`, `thresher.jobs` (by `outcome`), `thresher.incidents`,
 * `thresher.lease.claims`, `thresher.lease.losses`, `thresher.element.looping`; histograms `thresher.job.duration` (ms),
 * `thresher.checkpoint.write.duration` (ms) and `thresher.checkpoint.size` (bytes).
 */
export class Telemetry {
  private readonly tracer = trace.getTracer(SCOPE);
  private readonly live = new Map<string, InstanceSpans>();
  /** Instance records known untraced (their span did not record): nothing more is opened for them. */
  private readonly untraced = new WeakSet<InstanceRecord>();
  private readonly started: Counter;
  private readonly completed: Counter;
  private readonly terminated: Counter;
  private readonly failed: Counter;
  private readonly jobs: Counter;
  private readonly incidents: Counter;
  private readonly claims: Counter;
  private readonly losses: Counter;
  private readonly looping: Counter;
  private readonly jobDuration: Histogram;
  private readonly writeDuration: Histogram;
  private readonly documentSize: Histogram;
  /**
   * Whether a meter provider was registered when the engine was made (a meter taken without one stays a
   * no-op): without one, nothing is timed or counted, so the hot path pays nothing.
   */
  readonly metering: boolean;

  constructor() {
    const meter = metrics.getMeter(SCOPE);
    this.metering = !(meter instanceof NoopMeter);
    this.started = meter.createCounter('thresher.instances.started', { description: 'Instances started' });
    this.completed = meter.createCounter('thresher.instances.completed', { description: 'Instances completed' });
    this.terminated = meter.createCounter('thresher.instances.terminated', {
      description: 'Instances terminated (a terminate end event, a cancel)',
    });
    this.failed = meter.createCounter('thresher.instances.failed', {
      description: 'Instances whose loop stopped on a fault (a store refusal or failure, a delivery that failed)',
    });
    this.jobs = meter.createCounter('thresher.jobs', { description: 'Job handler calls, by outcome' });
    this.incidents = meter.createCounter('thresher.incidents', { description: 'Incidents raised' });
    this.claims = meter.createCounter('thresher.lease.claims', { description: 'Instance leases claimed' });
    this.losses = meter.createCounter('thresher.lease.losses', { description: 'Leases another engine took' });
    this.looping = meter.createCounter('thresher.element.looping', {
      description:
        'Loop warnings: an element entered past the loop warning in one scope activation, then at each doubling',
    });
    this.jobDuration = meter.createHistogram('thresher.job.duration', { unit: 'ms', description: 'Job handler time' });
    this.writeDuration = meter.createHistogram('thresher.checkpoint.write.duration', {
      unit: 'ms',
      description: 'Checkpoint put latency, group commit included',
    });
    this.documentSize = meter.createHistogram('thresher.checkpoint.size', {
      unit: 'By',
      description: 'Checkpoint document size',
    });
  }

  /**
   * A new instance: its span, under the caller's trace (`traceparent`) when given. Returns the trace context
   * the instance keeps (its span's), or undefined when its span does not record.
   */
  open(instance: InstanceRecord, traceparent?: string): string | undefined {
    const spans = this.spansOf(instance, traceparent === undefined ? undefined : contextOf(traceparent), false);
    return spans === undefined ? undefined : traceparentOf(spans.span);
  }

  /** Whether events are worth observing: something counts, a span is open, or a tracer is registered. */
  get active(): boolean {
    return this.metering || this.live.size > 0 || tracing();
  }

  /** An event a loop published (its step durable): spans and counters follow it (when {@link active}). */
  observe(event: EngineEvent, instance: InstanceRecord): void {
    switch (event.type) {
      case 'instance.started':
        this.started.add(1, { 'bpmn.process.id': instance.processId });
        return;
      case 'instance.completed':
      case 'instance.terminated':
        (event.type === 'instance.completed' ? this.completed : this.terminated).add(1, {
          'bpmn.process.id': instance.processId,
        });
        this.close(instance.id, event.type === 'instance.completed' ? 'completed' : 'terminated');
        return;
      case 'incident.raised': {
        this.incidents.add(1, { 'bpmn.process.id': instance.processId, 'bpmn.element.id': event.elementId });
        const element = this.elementSpan(instance.id, event.elementId);
        element?.addEvent('incident', { 'thresher.incident.id': event.incidentId, 'exception.message': event.message });
        element?.setStatus({ code: SpanStatusCode.ERROR, message: event.message });
        return;
      }
      case 'element.looping':
        this.looping.add(1, { 'bpmn.process.id': instance.processId, 'bpmn.element.id': event.elementId });
        this.elementSpan(instance.id, event.elementId)?.addEvent('looping', { 'thresher.element.turns': event.turns });
        return;
      case 'incident.resolved':
        this.elementSpan(instance.id, event.elementId)?.addEvent('incident resolved', {
          'thresher.incident.id': event.incidentId,
        });
        return;
      case 'job.failed':
        this.elementSpan(instance.id, event.elementId)?.addEvent('retry', {
          'thresher.job.id': event.jobId,
          'thresher.job.retries_left': event.retriesLeft,
          'exception.message': event.error,
        });
        return;
      case 'track.entered': {
        const spans = this.spansOf(instance);
        if (spans === undefined) return;
        const span = this.tracer.startSpan(
          `element ${event.elementId}`,
          {
            attributes: { ...spans.attributes, 'bpmn.element.id': event.elementId, 'thresher.track.id': event.trackId },
          },
          spans.context,
        );
        spans.elements.get(event.trackId)?.span.end();
        spans.elements.set(event.trackId, { span, elementId: event.elementId });
        return;
      }
      case 'track.left': {
        const spans = this.live.get(instance.id);
        spans?.elements.get(event.trackId)?.span.end();
        spans?.elements.delete(event.trackId);
        return;
      }
      default:
        return;
    }
  }

  /**
   * Run a job's handler inside its span (a child of its element's), handing `call` the span's trace
   * context for the handler's own calls; the outcome is recorded on the span and in the job instruments.
   */
  runJob<T extends JobOutcome>(
    instance: InstanceRecord,
    job: JobRecord,
    attempt: number,
    call: (traceContext: string | undefined) => Promise<T>,
  ): Promise<T> {
    const spans = this.spansOf(instance);
    // Untraced and unmetered: the call itself, not even a promise more.
    if (spans === undefined && !this.metering) return call(undefined);
    return this.observeJob(spans, job, attempt, call);
  }

  private async observeJob<T extends JobOutcome>(
    spans: InstanceSpans | undefined,
    job: JobRecord,
    attempt: number,
    call: (traceContext: string | undefined) => Promise<T>,
  ): Promise<T> {
    const startedAt = performance.now();
    let span: Span | undefined;
    let outcome: T;
    if (spans === undefined) {
      outcome = await call(undefined);
    } else {
      const parent = spans.elements.get(job.trackId)?.span;
      const parentContext = parent ? trace.setSpan(spans.context, parent) : spans.context;
      span = this.tracer.startSpan(
        `job ${job.taskType}`,
        {
          kind: SpanKind.INTERNAL,
          attributes: {
            ...spans.attributes,
            'bpmn.element.id': job.nodeId,
            'thresher.job.id': job.id,
            'thresher.job.type': job.taskType,
            'thresher.job.attempt': attempt,
          },
        },
        parentContext,
      );
      const active = trace.setSpan(parentContext, span);
      const traceContext = traceparentOf(span);
      outcome = await context.with(active, () => call(traceContext));
    }
    const failure = 'error' in outcome ? outcome.error : undefined;
    const failed = failure !== undefined;
    if (span) {
      if (failed) {
        span.recordException({ name: 'JobFailed', message: failure });
        span.setStatus({ code: SpanStatusCode.ERROR, message: failure });
      }
      span.end();
    }
    const attributes = { 'thresher.job.type': job.taskType, outcome: failed ? 'failed' : 'completed' };
    this.jobs.add(1, attributes);
    this.jobDuration.record(performance.now() - startedAt, attributes);
    return outcome;
  }

  /** A checkpoint put: how long it took to be durable, and its document's size. */
  checkpointWritten(ms: number, bytes: number): void {
    if (!this.metering) return;
    this.writeDuration.record(ms);
    this.documentSize.record(bytes);
  }

  leasesClaimed(count: number): void {
    if (count > 0) this.claims.add(count);
  }

  leaseLost(): void {
    this.losses.add(1);
  }

  /** An instance's loop stopped on a fault (not a lost lease: that is {@link leaseLost}). */
  instanceFailed(error: Error): void {
    this.failed.add(1, { 'error.type': error.name });
  }

  /** The instance's loop left this engine (retired, faulted, taken over, closed): its open spans end here. */
  left(instanceId: string): void {
    this.close(instanceId, 'left');
  }

  /** The engine closes: every open span ends. */
  closeAll(): void {
    for (const instanceId of [...this.live.keys()]) this.close(instanceId, 'left');
  }

  private close(instanceId: string, how: 'completed' | 'terminated' | 'left'): void {
    const spans = this.live.get(instanceId);
    if (spans === undefined) return;
    this.live.delete(instanceId);
    for (const { span } of spans.elements.values()) span.end();
    spans.span.setAttribute('thresher.instance.outcome', how);
    spans.span.end();
  }

  private elementSpan(instanceId: string, elementId: string): Span | undefined {
    const spans = this.live.get(instanceId);
    if (spans === undefined) return undefined;
    for (const element of spans.elements.values()) if (element.elementId === elementId) return element.span;
    return undefined;
  }

  /**
   * The instance's spans here, its span opened first when it has none yet (a new instance under `parent`, or
   * a restored one under the trace context its record keeps); undefined when its span does not record.
   */
  private spansOf(instance: InstanceRecord, parent?: Context, resumed = true): InstanceSpans | undefined {
    const known = this.live.get(instance.id);
    if (known !== undefined) return known;
    if (this.untraced.has(instance) || !tracing()) return undefined;
    const attributes: Attributes = {
      'thresher.instance.id': instance.id,
      'bpmn.process.id': instance.processId,
      'thresher.definition.id': instance.definition.id,
      'thresher.definition.version': instance.definition.version,
      ...(instance.businessKey === null ? {} : { 'thresher.business_key': instance.businessKey }),
    };
    const under = parent ?? contextOf(instance.traceContext) ?? ROOT_CONTEXT;
    const span = this.tracer.startSpan(
      `instance ${instance.processId}`,
      { attributes: resumed ? { ...attributes, 'thresher.instance.resumed': true } : attributes },
      under,
    );
    if (!span.isRecording()) {
      this.untraced.add(instance);
      return undefined;
    }
    const spans: InstanceSpans = { span, context: trace.setSpan(under, span), attributes, elements: new Map() };
    this.live.set(instance.id, spans);
    return spans;
  }
}
