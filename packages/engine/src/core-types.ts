import type { Variables } from '@thresher/checkpoint';
import type { EngineEvent } from './api-types.js';
import type { ProcessDef } from './model/types.js';

/** One thing that happens to an instance; the loop applies exactly one at a time. */
export type InstanceEvent =
  | {
      type: 'instance.start';
      variables: Variables;
      startNode: string;
      /** A timer start event's occurrence, scheduled by the one before it (not evaluated again). */
      timer?: { dueAt: number; cycle: { intervalMs: number; remaining: number | null } | null };
    }
  /** Stop an instance where it stands: every track cancelled, the instance `terminated`. */
  | { type: 'instance.cancel' }
  | { type: 'job.completed'; jobId: string; result: Variables }
  /** `errorCode` set: the handler threw a BPMN error, caught by a boundary or raised as an incident. */
  | { type: 'job.failed'; jobId: string; error: string; retryable: boolean; errorCode?: string }
  | { type: 'timer.fired'; timerId: string }
  | {
      type: 'message.correlated';
      name: string;
      correlationKey: string | null;
      variables: Variables;
      messageId: string | null;
    }
  | { type: 'signal.received'; name: string; variables: Variables; signalId: string | null }
  /** The outbox entry was delivered: it can go. */
  | { type: 'outbox.delivered'; entryId: string }
  | { type: 'userTask.completed'; taskId: string; variables: Variables }
  | { type: 'incident.retry'; incidentId: string };

/** An engine event before the runtime stamps its instance and time. */
export type Announcement = EngineEvent extends infer E
  ? E extends EngineEvent
    ? Omit<E, 'instanceId' | 'at'>
    : never
  : never;

/** What the runtime must do once the state that records it is durable. */
export type Effect =
  | { type: 'dispatch'; jobId: string }
  | { type: 'announce'; event: Announcement }
  /** An outbox entry to deliver once this step is durable. */
  | { type: 'deliver'; entryId: string };

/** What the pure core reads besides the instance: the model and the injected clock's reading. */
export interface CoreContext {
  process: ProcessDef;
  now: number;
  /** Retries of a task that does not say (`zeebe:taskDefinition retries`). */
  defaultRetries: number;
  /** Backoff in ms before retry n (1-based). */
  backoff: (failure: number) => number;
}
