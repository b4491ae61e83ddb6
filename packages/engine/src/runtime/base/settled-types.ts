/**
 * What `engine.settled` answers and takes: why an instance settled, and what it waits for.
 *
 * @module
 */
import type { IncidentRecord } from '@thresher/checkpoint';
import type { AdHocView, CallView, UserTaskView } from './types.js';

/** A job waiting out the backoff before its next attempt: a wait on time, like a BPMN timer. */
export interface RetryWait {
  elementId: string;
  /** The job's id within its instance, as in `job.dispatched` and `job.failed` events. */
  jobId: string;
  taskType: string;
  /** The attempt that runs once the backoff is over. */
  attempt: number;
  /** When it runs (epoch ms). */
  dueAt: number;
  /** The last failure's message, when the job recorded one. */
  error: string | null;
}

/** A job waiting for a worker outside the engine (`EngineOptions.externalJobs`), as `settled` lists it. */
export interface JobWait {
  elementId: string;
  /** `<instanceId>/<jobId>`, as `completeJob` takes it. */
  jobId: string;
  taskType: string;
  attempt: number;
  retries: number;
  /** Epoch ms before which no worker can activate it (a retry backoff); null when it can be now. */
  notBefore: number | null;
}

/** Why `settled` returned: the instance ended, or it waits for something outside the engine. */
export type SettledState =
  | { instanceId: string; status: 'completed' | 'terminated' }
  | {
      instanceId: string;
      status: 'waiting';
      userTasks: UserTaskView[];
      incidents: IncidentRecord[];
      /** BPMN timers armed, earliest first (empty under `settled({ timers: 'wait' })`, which waits them out). */
      timers: { elementId: string; dueAt: number }[];
      /**
       * Jobs waiting out a retry backoff, earliest first (empty under `settled({ retries: 'wait' })`). A
       * backoff already over is never listed: its attempt is dispatched at once.
       */
      retries: RetryWait[];
      /** Messages and signals the instance waits for. */
      subscriptions: { elementId: string; kind: 'message' | 'signal'; name: string; correlationKey: string | null }[];
      /**
       * The children its call activities wait on. Every list above also holds what those children (and
       * theirs) wait on: a user task or incident of a child carries the child's id in its own.
       */
      calls: CallView[];
      /** Running ad-hoc sub-processes: one waiting for activations waits on the outside world too. */
      adHocSubProcesses: AdHocView[];
      /** Jobs waiting for a worker outside the engine (`externalJobs`). */
      jobs: JobWait[];
    };

/**
 * What `settled` waits out before it resolves. Nothing under way inside the engine (a step, a running
 * handler, a signal being delivered, a timer or backoff already due) is ever waited out by choice: it always is.
 */
export interface SettledOptions {
  /**
   * `park` (default): an instance waiting only on BPMN timers counts as settled (its timers are listed);
   * `wait`: it settles only once no timer is armed either.
   */
  timers?: 'park' | 'wait';
  /**
   * `park` (default): a job waiting out a retry backoff is a wait on time like a timer — the instance
   * settles and lists it in `retries`, so a clock moved by hand can be advanced to its `dueAt`;
   * `wait`: it settles only once no backoff is pending (on a clock that moves by itself).
   */
  retries?: 'park' | 'wait';
}
