import type { JobRecord, TrackRecord, UserTaskRecord, Variables } from '@thresher/checkpoint';
import { NotFoundError } from '../common/errors.js';
import type { ScriptTaskNode, UserTaskNode } from '../model/types.js';
import { announce, nextId, type StepContext } from './context.js';
import { eventId, jobEventId } from './event-ids.js';
import { evaluateOrIncident, NO_VALUE, raiseIncident, wrongValueIncident } from './incidents.js';
import { listened } from './listeners.js';
import { throwError } from './throws.js';
import { move } from './tracks.js';

/**
 * Activities that do work: jobs (service and send tasks, message throws, execution listeners — a handler runs
 * them; `jobs.ts` makes them), user tasks (a person completes them) and script tasks (a FEEL expression) — and
 * how a job's outcome comes back.
 */

/**
 * A job's handler returned: the track leaves its element with the result — or, for an execution listener's
 * job, takes its variables and goes on to the next listener or its element.
 */
export function jobCompleted(ctx: StepContext, jobId: string, result: Variables): void {
  const job = ctx.state.jobs.get(jobId);
  // A result for a job that is gone (cancelled, or already applied from the journal) changes nothing.
  if (!job) return;
  const track = ctx.state.track(job.trackId);
  ctx.state.write('jobs').delete(jobId);
  if (!job.listener) track.result = result;
  track.wait = null;
  announce(ctx, {
    id: jobEventId(ctx.id, job.identity, 'job.completed'),
    type: 'job.completed',
    jobId,
    elementId: job.nodeId,
    ...listenerOf(job),
  });
  if (job.listener) return listened(ctx, track, job.listener, result);
  move(ctx, track, 'RESUME');
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
): void {
  const job = ctx.state.jobs.get(jobId);
  if (!job) return;
  if (errorCode !== undefined && job.listener) {
    // Zeebe rejects a BPMN error from a listener's job (its element is not active to catch it): a failure no
    // retry mends, whose incident says why.
    const listener = `${job.listener.eventType} listener "${job.taskType}"`;
    error = `the ${listener} threw the BPMN error ${errorCode} (${error}), which a listener cannot throw, as in Zeebe: complete or fail its job instead; retrying the incident runs the listener again`;
    retryable = false;
    errorCode = undefined;
  }
  if (errorCode !== undefined) {
    const track = ctx.state.track(job.trackId);
    if (throwError(ctx, track, errorCode, {})) return void ctx.state.write('jobs').delete(jobId);
    job.lastError = error;
    raiseIncident(ctx, track, 'uncaught-error', 'job', `uncaught BPMN error ${errorCode}: ${error}`, jobId);
    return;
  }
  job.failures += 1;
  job.retriesLeft = retryable ? Math.max(0, job.retriesLeft - 1) : 0;
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
    job.notBefore = ctx.now + ctx.backoff(job.failures);
    return;
  }
  job.notBefore = null;
  const message = retryable ? `handler failed: ${error}` : error;
  raiseIncident(ctx, ctx.state.track(job.trackId), 'job-failed', 'job', message, jobId);
}

/** What a job's events say of it: the event an execution listener's job runs at, nothing for any other. */
export function listenerOf(job: JobRecord): { listener?: 'start' | 'end' } {
  return job.listener ? { listener: job.listener.eventType } : {};
}

/** The track waits at a user task until someone completes it. */
export function createUserTask(ctx: StepContext, track: TrackRecord, node: UserTaskNode): void {
  const assignee = node.assignee ? evaluateOrIncident(ctx, track, node.assignee, 'enter') : null;
  if (assignee === NO_VALUE) return;
  if (assignee !== null && typeof assignee !== 'string') {
    const rule = 'an assignee must be a string or null';
    return wrongValueIncident(ctx, track, 'zeebe:assignmentDefinition assignee', node.assignee!, assignee, rule);
  }
  const candidates = candidatesOf(ctx, track, node);
  if (!candidates) return;
  const taskId = nextId(ctx, 'u');
  ctx.state.userTasks.set(taskId, {
    id: taskId,
    trackId: track.id,
    nodeId: node.id,
    name: node.name,
    assignee,
    ...candidates,
    createdAt: ctx.now,
  });
  track.wait = { kind: 'userTask', taskId };
  move(ctx, track, 'WAIT');
  announce(ctx, {
    id: eventId(ctx.id, 'userTask.created', taskId),
    type: 'userTask.created',
    taskId,
    elementId: node.id,
  });
}

/** A user task's candidate groups and users, each a list of strings; undefined when an incident was raised. */
function candidatesOf(
  ctx: StepContext,
  track: TrackRecord,
  node: UserTaskNode,
): Pick<UserTaskRecord, 'candidateGroups' | 'candidateUsers'> | undefined {
  const candidates: Pick<UserTaskRecord, 'candidateGroups' | 'candidateUsers'> = {};
  for (const property of ['candidateGroups', 'candidateUsers'] as const) {
    const expression = node[property];
    if (!expression) continue;
    const value = evaluateOrIncident(ctx, track, expression, 'enter');
    if (value === NO_VALUE) return undefined;
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
      const what = `zeebe:assignmentDefinition ${property}`;
      return wrongValueIncident(ctx, track, what, expression, value, 'it must be a list of strings');
    }
    candidates[property] = value;
  }
  return candidates;
}

/** A user task was completed: the track leaves it with the variables it produced. */
export function userTaskCompleted(ctx: StepContext, taskId: string, variables: Variables): void {
  const task = ctx.state.userTasks.get(taskId);
  if (!task) throw new NotFoundError('userTask', `${ctx.id}/${taskId}`);
  const track = ctx.state.track(task.trackId);
  ctx.state.userTasks.delete(taskId);
  track.result = variables;
  track.wait = null;
  announce(ctx, {
    id: eventId(ctx.id, 'userTask.completed', taskId),
    type: 'userTask.completed',
    taskId,
    elementId: task.nodeId,
  });
  move(ctx, track, 'RESUME');
}

/** A script task: its expression's value goes into its result variable. */
export function runScript(ctx: StepContext, track: TrackRecord, node: ScriptTaskNode): void {
  const value = evaluateOrIncident(ctx, track, node.expression, 'enter');
  if (value === NO_VALUE) return;
  track.result = { [node.resultVariable]: value };
  move(ctx, track, 'COMPLETE');
}
