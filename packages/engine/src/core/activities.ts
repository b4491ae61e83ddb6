import type { JobRecord, TrackRecord, Variables } from '@thresher/checkpoint';
import { InvalidArgumentError } from '../common/errors.js';
import type { ListenerEventName } from '../common/events.js';
import type { ScriptTaskNode } from '../model/node-types.js';
import { throwError } from './composites/throws.js';
import { evaluateOrIncident, NO_VALUE, raiseIncident } from './jobs/incidents.js';
import { listened } from './jobs/listeners.js';
import { announce, type StepContext } from './step/context.js';
import { jobEventId } from './step/event-ids.js';
import { move } from './step/tracks.js';
import { taskListened } from './user-tasks/user-task-transitions.js';

/**
 * Activities that do work: jobs (service and send tasks, message throws, execution and task listeners — a
 * handler runs them; `jobs.ts` makes them) and script tasks (a FEEL expression) — and how a job's outcome comes
 * back. User tasks are `user-tasks.ts`.
 */

/**
 * A job's handler returned: the track leaves its element with the result — or, for an execution listener's
 * job, takes its variables and goes on to the next listener or its element.
 */
export function jobCompleted(ctx: StepContext, jobId: string, result: Variables, byWorker = false): void {
  const job = ctx.state.jobs.get(jobId);
  // A result for a job that is gone (cancelled, or already applied from the journal) changes nothing.
  if (!job) return;
  if (job.taskListener) {
    const refused = taskListened(ctx, job, result, () => announceCompleted(ctx, job));
    if (refused !== null && byWorker) throw new InvalidArgumentError(refused);
    return void (refused === null || jobFailed(ctx, jobId, refused, false, undefined));
  }
  const track = ctx.state.track(job.trackId);
  ctx.state.write('jobs').delete(jobId);
  if (!job.listener) track.result = result;
  track.wait = null;
  announceCompleted(ctx, job);
  if (job.listener) return listened(ctx, track, job.listener, result);
  move(ctx, track, 'RESUME');
}

function announceCompleted(ctx: StepContext, job: JobRecord): void {
  announce(ctx, {
    id: jobEventId(ctx.id, job.identity, 'job.completed'),
    type: 'job.completed',
    jobId: job.id,
    elementId: job.nodeId,
    ...listenerOf(job),
  });
}

/**
 * A job's handler failed: retried after a backoff while retries are left, else an incident. A BPMN error
 * (`errorCode`) is not a failure to retry: the nearest catcher takes it, else it is an incident. A failure
 * no retry can mend (`retryable` false: no handler for the type) is an incident at once, worded as given.
 */
export function jobFailed(
  ctx: StepContext,
  jobId: string,
  error: string,
  retryable: boolean,
  errorCode: string | undefined,
  worker: WorkerFailure = {},
): void {
  const job = ctx.state.jobs.get(jobId);
  if (!job) return;
  if (worker.variables) {
    const track = ctx.state.track(job.trackId);
    track.locals = { ...track.locals, ...worker.variables };
  }
  const listening = job.listener?.eventType ?? job.taskListener?.eventType;
  if (errorCode !== undefined && listening) {
    // Zeebe rejects a BPMN error from a listener's job (its element is not active to catch it): a failure no
    // retry mends, whose incident says why.
    const listener = `${listening} listener "${job.taskType}"`;
    error = `the ${listener} threw the BPMN error ${errorCode} (${error}), which a listener cannot throw, as in Zeebe: complete or fail its job instead; retrying the incident runs the listener again`;
    retryable = false;
    errorCode = undefined;
  }
  if (errorCode !== undefined) {
    const track = ctx.state.track(job.trackId);
    if (throwError(ctx, track, errorCode, worker.variables ?? {})) return void ctx.state.write('jobs').delete(jobId);
    job.lastError = error;
    raiseIncident(ctx, track, 'uncaught-error', 'job', `uncaught BPMN error ${errorCode}: ${error}`, jobId);
    return;
  }
  job.failures += 1;
  job.retriesLeft = !retryable ? 0 : Math.max(0, worker.retries ?? job.retriesLeft - 1);
  job.lastError = error;
  announce(ctx, {
    id: jobEventId(ctx.id, job.identity, 'job.failed', job.failures),
    type: 'job.failed',
    jobId,
    elementId: job.nodeId,
    error,
    retriesLeft: job.retriesLeft,
    ...listenerOf(job),
  });
  if (job.retriesLeft > 0) {
    // Still in flight: a new failure count is a new dispatch, after the backoff.
    job.notBefore = ctx.now + (worker.backoffMs ?? ctx.backoff(job.failures));
    return;
  }
  job.notBefore = null;
  const message = retryable ? `handler failed: ${error}` : error;
  raiseIncident(ctx, ctx.state.track(job.trackId), 'job-failed', 'job', message, jobId);
}

/** What a worker outside the engine says with a failure: retries left, the backoff, variables for the element. */
export interface WorkerFailure {
  retries?: number;
  backoffMs?: number;
  variables?: Variables;
}

/** A worker outside the engine set how many retries a job has left (an incident already raised stays). */
export function jobUpdated(ctx: StepContext, jobId: string, retries: number): void {
  const job = ctx.state.jobs.get(jobId);
  if (job) job.retriesLeft = retries;
}

/** What a job's events say of it: the event a listener's job runs at, nothing for any other. */
export function listenerOf(job: JobRecord): { listener?: ListenerEventName } {
  const event = job.listener?.eventType ?? job.taskListener?.eventType;
  return event ? { listener: event } : {};
}

/** A script task: its expression's value goes into its result variable. */
export function runScript(ctx: StepContext, track: TrackRecord, node: ScriptTaskNode): void {
  const value = evaluateOrIncident(ctx, track, node.expression, 'enter');
  if (value === NO_VALUE) return;
  track.result = { [node.resultVariable]: value };
  move(ctx, track, 'COMPLETE');
}
