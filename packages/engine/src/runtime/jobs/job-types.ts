import type { Variables } from '@thresher/checkpoint';
import type { Job } from '../base/types.js';

/** What `engine.activateJobs` looks for, for whom, and how long it waits. */
export interface ActivateJobsOptions {
  /** The task type (`zeebe:taskDefinition type`, a listener's `type`) to activate jobs of. */
  type: string;
  /** Names the worker the jobs are locked for. */
  worker: string;
  /** How long each job stays locked for the worker, in ms of the engine's clock; then another may activate it. */
  timeout: number;
  /** At most this many jobs. */
  maxJobs: number;
  /** Only these variables (all visible to the job when absent or empty). */
  fetchVariables?: readonly string[];
  /** When no job can be activated at once, wait up to this many ms (real time) for one. Default 0. */
  requestTimeout?: number;
  /** Stop waiting (the caller went away): resolves with what was activated, none. */
  signal?: AbortSignal;
}

/** A job activated for a worker outside the engine: what its handler would be given, and its lock. */
export interface ActivatedJob extends Omit<Job, 'id' | 'traceContext'> {
  /** `<instanceId>/<jobId>`: what `completeJob`, `failJob`, `throwJobError` and `updateJob` take. */
  id: string;
  /** The job's id within its instance, as in `job.dispatched` events. */
  jobId: string;
  processId: string;
  /** The activation of the element the job runs for (`<scope>:<element>:<attempt>`): the same for every job of it. */
  elementInstanceId: string;
  /** The instance's parent (a call activity's), null for a root. */
  parentId: string | null;
  /** The digest of the deployment the instance runs (`InstanceView.digest`). */
  digest: string;
  /** Retries left, this attempt included. */
  retries: number;
  worker: string;
  /** Epoch ms (the engine's clock) the lock expires at. */
  deadline: number;
}

/** What a worker says with a failure (`engine.failJob`). */
export interface FailJobOptions {
  /** Retries left after this failure: 0 raises an incident. */
  retries: number;
  errorMessage?: string;
  /** Ms before the job may be activated again. Default 0. */
  retryBackOff?: number;
  /** Variables set local to the job's element first. */
  variables?: Variables;
}

/** A BPMN error a worker throws (`engine.throwJobError`): caught by the nearest catcher, else an incident. */
export interface ThrowJobErrorOptions {
  errorCode: string;
  errorMessage?: string;
  /** Variables the catcher's scope gets with the error. */
  variables?: Variables;
}

/** What `engine.updateJob` changes. */
export interface UpdateJobOptions {
  /** Retries left: at least 1. */
  retries?: number;
  /** A new lock timeout from now, in ms: only while the job is activated. */
  timeout?: number;
}
