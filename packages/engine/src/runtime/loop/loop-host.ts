import type { InstanceStatus, OutboxEntry } from '@thresher/checkpoint';
import type { Clock } from '../../common/clock.js';
import type { EngineEvent } from '../../common/events.js';
import type { Telemetry } from '../base/telemetry.js';
import type { Handlers } from '../base/types.js';
import type { DecisionBook } from '../deployments/decisions.js';
import type { LeasedStore } from '../leases/leased-store.js';

/**
 * What an instance's loop needs from the engine around it, as six narrow seams, each made once per engine
 * (`engine-parts.ts`) and shared by all its loops. `TLoop` is the loop itself (`InstanceRuntime`), which the
 * deliveries and the residency are handed back.
 */
export interface LoopHost<TLoop> {
  readonly settings: LoopSettings;
  readonly events: EventSink;
  /** The repository under the instance's lease: every write a loop makes goes through it. */
  readonly store: LeasedStore;
  readonly deliveries: OutboxDeliveries<TLoop>;
  readonly residency: LoopResidency<TLoop>;
  /** Spans and metrics (OpenTelemetry's API: no-ops without an SDK). */
  readonly telemetry: Telemetry;
}

/** What every step reads: the engine's clock, its retry policy and its handlers. */
export interface LoopSettings {
  readonly clock: Clock;
  /** Retries of a task that does not say (`zeebe:taskDefinition retries`). */
  readonly defaultRetries: number;
  /** Backoff in ms before retry n (1-based). */
  backoff(failure: number): number;
  /** Looked up at each dispatch: a handler registered later runs on the next one. */
  readonly handlers: Handlers;
  /**
   * A job whose type has no handler waits for a worker outside the engine (`EngineOptions.externalJobs`): it is
   * queued in the store, and `jobQueued` is told its type once it is.
   */
  readonly externalJobs: boolean;
  jobQueued(taskType: string): void;
  /** Element moves after which a run that has not waited yields, so other instances and I/O get their turn. */
  readonly yieldAfter: number;
  /** Element moves a run may make without waiting before it stops with `step-limit` incidents. */
  readonly stepLimit: number;
  /** Entries of one element in one scope activation past which a step warns (`element.looping`). */
  readonly loopWarning: number;
  /** The deployed decisions business rule tasks evaluate. */
  readonly decisions: DecisionBook;
  /** How many checkpoints an instance keeps, its latest included (`EngineOptions.retention.checkpoints`); undefined: all. */
  readonly keepCheckpoints: number | undefined;
}

/** Where a loop's events go, once the step that made them is durable. */
export interface EventSink {
  /** Whether anyone listens for events of `type`: an event nobody hears is not built. */
  listening(type: EngineEvent['type']): boolean;
  emit(event: EngineEvent): void;
}

/** The other side of an outbox entry: instances waiting for a signal, a timer start's next occurrence, a call's other end. */
export interface OutboxDeliveries<TLoop> {
  /** Deliver `from`'s entry; idempotent by the entry's id, so a delivery repeated after a crash changes nothing. */
  deliver(from: TLoop, entry: OutboxEntry): Promise<unknown>;
}

/** The engine's book of the loops in memory: how a loop leaves it (ended, faulted, retired) and comes back. */
export interface LoopResidency<TLoop> {
  /** A store or engine fault that stopped this instance's loop. */
  fault(instanceId: string, error: Error): void;
  /** The instance ended, as `status`, durably at `seq`, and that write's events are published; `released`: the write let go of the lease. */
  ended(instanceId: string, status: Exclude<InstanceStatus, 'running'>, seq: number, released: boolean): void;
  /** Whether the loop may retire now that the instance is parked with nothing under way (`EngineOptions.dehydrate`). */
  mayRetire(runtime: TLoop): boolean;
  /** The loop retired: the earliest due time of its BPMN timers, if it has any. */
  retired(runtime: TLoop, earliestDue: number | undefined): void;
  /** The instance's live loop, restored from the store: where a retired loop forwards its calls. */
  revive(instanceId: string): Promise<TLoop>;
}
