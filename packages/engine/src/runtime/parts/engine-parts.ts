import { EventEmitter } from 'node:events';
import type { Repository, StepLog } from '@thresher/checkpoint';
import type { Clock } from '../../common/clock.js';
import { EngineError, EngineErrorCode, EventListenerError, NotFoundError } from '../../common/errors.js';
import type { EngineEvent, EngineEventType } from '../../common/events.js';
import type { Touchpoint } from '../../common/touchpoint-types.js';
import { processPlan } from '../../touchpoints/plan.js';
import { defaultBackoff, systemClock } from '../base/clock.js';
import { JobBell } from '../base/job-bell.js';
import { newOwner, ownerAlive } from '../base/owners.js';
import { Telemetry } from '../base/telemetry.js';
import type { Handlers } from '../base/types.js';
import { DecisionBook } from '../deployments/decisions.js';
import { Definitions } from '../deployments/definitions.js';
import { EndedSweep, type RetentionOptions, retentionOf } from '../document/retention.js';
import { LeasedStore } from '../leases/leased-store.js';
import { DEFAULT_LEASE_TTL_MS, Leases } from '../leases/leases.js';
import type { InstanceRuntime } from '../loop/instance-runtime.js';
import type { EventSink, LoopHost, OutboxDeliveries } from '../loop/loop-host.js';
import { CallLinks } from './call-links.js';
import { broadcastSignal } from './deliveries.js';
import { DuePoll } from './due-poll.js';
import { Instances } from './instances.js';
import { startInstance } from './starts.js';
import { startOccurrence, type TimerStartHost } from './timer-starts.js';

/** What `createEngineParts` takes: the engine's options, less what only the API reads. */
export interface EnginePartsOptions {
  repository: Repository;
  handlers?: Handlers;
  clock?: Clock;
  retries?: number;
  backoff?: (failure: number) => number;
  owner?: string;
  leaseTtlMs?: number;
  dehydrate?: boolean;
  stepLimit?: number;
  loopWarning?: number;
  retention?: RetentionOptions;
  externalJobs?: boolean;
}

/** Element moves a run makes before it yields to other work (durably, at a persist point of its own). */
const YIELD_AFTER = 1_000;
/** Element moves a run may make without waiting, unless `EngineOptions.stepLimit` says. */
export const DEFAULT_STEP_LIMIT = 100_000;
/** Entries of one element in one scope activation past which a step warns, unless `EngineOptions.loopWarning` says. */
export const DEFAULT_LOOP_WARNING = 1_000;

/** What the engine's API works through. Made once per engine by {@link createEngineParts}. */
export interface EngineParts {
  readonly repository: Repository;
  readonly clock: Clock;
  /** The engine's handlers: `engine.handle` adds to this very object, which every loop reads at dispatch. */
  readonly handlers: Handlers;
  /** Wakes activations waiting for jobs of a type when this engine queues one. */
  readonly jobBell: JobBell;
  readonly leases: Leases;
  readonly definitions: Definitions;
  readonly decisions: DecisionBook;
  readonly instances: Instances;
  readonly calls: CallLinks;
  /** What deliveries of messages, signals and timer starts use. */
  readonly deliveries: TimerStartHost;
  readonly duePoll: DuePoll;
  readonly loopHost: LoopHost<InstanceRuntime>;
  /** Where events and faults are published (`engine.on`, `engine.onFault`). */
  readonly emitter: EventEmitter;
  /** Whether the engine is closed, and whether it dehydrates (a worker turns that on). */
  readonly flags: { closed: boolean; dehydrate: boolean };
  /** Renews the engine's leases every third of their time to live. */
  readonly renewing: ReturnType<typeof setInterval>;
  /** Expires ended instances as `EngineOptions.retention.ended` says. */
  readonly sweep: EndedSweep;
  /** The touchpoint plan of the process a log entry's instance ran (what reading its touchpoint events needs). */
  readonly planOfEntry: (log: StepLog) => Promise<readonly Touchpoint[]>;
}

/**
 * Build everything an engine is made of, each part given the narrow seams of the others it uses: the leases
 * and the store under them, the book of instances in memory, call links, deliveries, the due-timer poll, and
 * the {@link LoopHost} every instance's loop shares. The one place the engine's parts are wired together.
 */
export function createEngineParts(options: EnginePartsOptions): EngineParts {
  const { repository } = options;
  const clock = options.clock ?? systemClock;
  const ttlMs = options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  if (!(Number.isSafeInteger(ttlMs) && ttlMs > 0)) {
    throw new RangeError(`leaseTtlMs must be a positive integer of milliseconds, got ${ttlMs}`);
  }
  const stepLimit = options.stepLimit ?? DEFAULT_STEP_LIMIT;
  if (!(Number.isSafeInteger(stepLimit) && stepLimit > 0)) {
    throw new RangeError(`stepLimit must be a positive integer of element moves, got ${stepLimit}`);
  }
  const retention = retentionOf(options.retention);
  const loopWarning = options.loopWarning ?? DEFAULT_LOOP_WARNING;
  if (!(Number.isSafeInteger(loopWarning) && loopWarning > 0)) {
    throw new RangeError(`loopWarning must be a positive integer of entries, got ${loopWarning}`);
  }
  const telemetry = new Telemetry();
  const leases = new Leases(repository, clock, options.owner ?? newOwner(), ttlMs, telemetry);
  ownerAlive(leases.owner);
  const flags = { closed: false, dehydrate: options.dehydrate ?? false };
  const handlers: Handlers = { ...options.handlers };
  const jobBell = new JobBell();
  const definitions = new Definitions(repository);
  const decisions = new DecisionBook(repository);
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const reportFault = (instanceId: string, error: unknown): void => {
    emitter.emit('fault', { instanceId, error: error instanceof Error ? error : new Error(String(error)) });
  };

  // Parts that need one another are read through these late bindings: each is made below, before any runs.
  let loopHost: LoopHost<InstanceRuntime>;
  let calls: CallLinks;
  let duePoll: DuePoll;
  const instances = new Instances({
    repository,
    clock,
    leases,
    definitions,
    loopHost: () => loopHost,
    calls: () => calls,
    armDue: (dueAt) => duePoll.arm(dueAt),
    reportFault,
    dehydrating: () => flags.dehydrate,
    closed: () => flags.closed,
    assertOpen: () => {
      if (flags.closed) throw closedError();
    },
  });
  duePoll = new DuePoll(
    repository,
    clock,
    (instanceId) => instances.has(instanceId),
    (instanceIds) => instances.wakeDue(instanceIds),
    Math.floor(ttlMs / 3),
  );
  const deliveries: TimerStartHost = {
    repository,
    clock,
    loaded: () => instances.entries(),
    runtime: (instanceId) => instances.runtime(instanceId),
    model: async (deployment) => (await definitions.from(deployment)).model,
    startAt: (deployment, process, startNode, variables) =>
      startInstance(parts, deployment, process, startNode, variables),
    startWith: async (deployment, processId, startNode, { id, timer }) => {
      const process = (await definitions.from(deployment)).model.processes.get(processId);
      if (!process) throw new NotFoundError('process', processId);
      return startInstance(parts, deployment, process, startNode, {}, { id, ...(timer ? { timer } : {}) });
    },
    cancel: (instanceId) => instances.cancel(instanceId),
  };
  calls = new CallLinks({
    repository,
    definitions,
    runtime: (instanceId) => instances.runtime(instanceId),
    loaded: (instanceId) => instances.loaded(instanceId),
    startChild: (childId, deployment, process, startNode, variables, link, traceContext) =>
      startInstance(parts, deployment, process, startNode, variables, {
        id: childId,
        link,
        ...(traceContext === undefined ? {} : { traceContext }),
      }),
  });
  const outbox: OutboxDeliveries<InstanceRuntime> = {
    deliver: (from, entry) => {
      switch (entry.kind) {
        case 'signal': {
          const signal = { variables: entry.variables, signalId: entry.id };
          const delivery = flags.closed
            ? Promise.reject(closedError())
            : broadcastSignal(deliveries, entry.name, signal);
          // A signal that fails for some instance is reported; its thrower goes on.
          return delivery.catch((error: unknown) => reportFault('', error));
        }
        case 'start': {
          const { digest } = from.current.instance.definition;
          const next = { dueAt: entry.dueAt, cycle: entry.cycle };
          return startOccurrence(
            deliveries,
            digest,
            from.current.instance.processId,
            entry.startNode,
            entry.occurrence,
            next,
          );
        }
        default:
          return calls.deliver(from, entry);
      }
    },
  };
  loopHost = {
    settings: {
      clock,
      handlers,
      defaultRetries: options.retries ?? 3,
      backoff: options.backoff ?? defaultBackoff,
      yieldAfter: YIELD_AFTER,
      stepLimit,
      loopWarning,
      decisions,
      keepCheckpoints: retention.keepCheckpoints,
      externalJobs: options.externalJobs ?? false,
      jobQueued: (type) => jobBell.ring(type),
    },
    events: eventSink(emitter, reportFault),
    store: new LeasedStore(repository, leases),
    deliveries: outbox,
    residency: instances,
    telemetry,
  };
  // Real time, not the engine's clock: a lease must outlive a pause of this process however the engine's
  // clock is driven. unref: holding leases never keeps a process alive.
  const renewing = setInterval(() => void instances.renewLeases(), Math.max(1, Math.floor(ttlMs / 3)));
  renewing.unref();
  const sweep = new EndedSweep(repository, clock, retention, (error) => reportFault('', error));
  const planOfEntry = async (log: StepLog) =>
    processPlan((await definitions.findProcess(log.processId, log.definitionDigest)).process).list;
  const parts: EngineParts = {
    repository,
    clock,
    handlers,
    jobBell,
    leases,
    definitions,
    decisions,
    instances,
    calls,
    deliveries,
    duePoll,
    loopHost,
    emitter,
    flags,
    renewing,
    sweep,
    planOfEntry,
  };
  return parts;
}

/**
 * The engine's events as a loop publishes them: each under its type and under `'*'`. A listener that throws
 * is a fault of its own: the others still hear the event, and the loop that published it goes on performing
 * its effects (a throw reaching it would leave jobs undispatched and reject a caller whose step was durable).
 */
function eventSink(emitter: EventEmitter, reportFault: (instanceId: string, error: unknown) => void): EventSink {
  const publish = (type: string, event: EngineEvent): void => {
    for (const listener of emitter.listeners(type)) {
      try {
        (listener as (event: EngineEvent) => void)(event);
      } catch (error) {
        reportFault(event.instanceId, new EventListenerError(event.type, error));
      }
    }
  };
  return {
    listening: (type: EngineEventType) => emitter.listenerCount(type) > 0 || emitter.listenerCount('*') > 0,
    emit: (event: EngineEvent) => {
      publish(event.type, event);
      publish('*', event);
    },
  };
}

/** What every call on a closed engine is refused with. */
export function closedError(): EngineError {
  return new EngineError(EngineErrorCode.Closed, 'the engine is closed');
}
