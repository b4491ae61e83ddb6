import type { Variables } from '@thresher/checkpoint';
import type { EngineEvent } from './api-types.js';
import type { ProcessDef } from './model/types.js';

/** One thing that happens to an instance; the loop applies exactly one at a time. */
export type InstanceEvent =
  | { type: 'instance.start'; variables: Variables }
  | { type: 'job.completed'; jobId: string; result: Variables }
  | { type: 'job.failed'; jobId: string; error: string; retryable: boolean }
  | { type: 'userTask.completed'; taskId: string; variables: Variables }
  | { type: 'incident.retry'; incidentId: string };

/** An engine event before the runtime stamps its instance and time. */
export type Announcement = EngineEvent extends infer E
  ? E extends EngineEvent
    ? Omit<E, 'instanceId' | 'at'>
    : never
  : never;

/** What the runtime must do once the state that records it is durable. */
export type Effect = { type: 'dispatch'; jobId: string } | { type: 'announce'; event: Announcement };

/** What the pure core reads besides the instance: the model and the injected clock's reading. */
export interface CoreContext {
  process: ProcessDef;
  now: number;
  /** Retries of a task that does not say (`zeebe:taskDefinition retries`). */
  defaultRetries: number;
  /** Backoff in ms before retry n (1-based). */
  backoff: (failure: number) => number;
}
