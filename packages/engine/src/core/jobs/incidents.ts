import type { IncidentRecord, JobRecord, TrackRecord, UserTaskRecord, Variables } from '@thresher/checkpoint';
import { ExpressionError, NotFoundError } from '../../common/errors.js';
import { evaluate } from '../../common/feel.js';
import { jobSourceOf } from '../../model/process-types.js';
import type { Expression, Mapping } from '../../model/types.js';
import { announce, nextId, type StepContext } from '../step/context.js';
import { eventId } from '../step/event-ids.js';
import { MappingError, runMappings } from '../step/mappings.js';
import { newIncident } from '../step/records.js';
import { move } from '../step/tracks.js';
import { freshRetries } from './job-retries.js';
import { variablesOfJob } from './jobs.js';

/** Where a retried incident picks up, for an incident that is not a job's. */
export type Resume = Exclude<IncidentRecord['resume'], 'job'>;

/** What `evaluateOrIncident` returns when the expression failed and an incident was raised instead. */
export const NO_VALUE: unique symbol = Symbol('no value');

/** Stop a track with an incident: it waits for a person to retry (`resume` says where it picks up). */
export function raiseIncident(
  ctx: StepContext,
  track: TrackRecord,
  kind: IncidentRecord['kind'],
  resume: IncidentRecord['resume'],
  message: string,
  jobId: string | null,
): void {
  const incidentId = nextId(ctx, 'i');
  ctx.state.write('incidents').set(incidentId, newIncident(incidentId, track, kind, resume, message, jobId, ctx.now));
  track.wait = { kind: 'incident', incidentId };
  move(ctx, track, 'FAIL');
  announce(ctx, {
    id: eventId(ctx.id, 'incident.raised', incidentId),
    type: 'incident.raised',
    incidentId,
    elementId: track.nodeId,
    message,
  });
}

/** Run mappings over `view`; undefined when one failed and an incident was raised on the track. */
export function mapOrIncident(
  ctx: StepContext,
  track: TrackRecord,
  mappings: readonly Mapping[],
  view: Variables,
  resume: Resume,
): Variables | undefined {
  try {
    return runMappings(mappings, view, ctx.now);
  } catch (error) {
    if (!(error instanceof MappingError)) throw error;
    raiseIncident(ctx, track, 'mapping-failed', resume, error.message, null);
    return undefined;
  }
}

/**
 * Evaluate an expression in the track's view (or the `view` given); `NO_VALUE` when it failed and an
 * incident was raised.
 */
export function evaluateOrIncident(
  ctx: StepContext,
  track: TrackRecord,
  expression: Expression,
  resume: Resume,
  view?: Variables,
): unknown {
  try {
    return evaluate(expression, view ?? { ...ctx.state.visible(track.scopePath), ...track.locals }, ctx.now);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    raiseIncident(ctx, track, 'expression-failed', resume, error.message, null);
    return NO_VALUE;
  }
}

/**
 * An expression gave a value of the wrong kind: an incident naming the attribute, the expression, the value
 * and the rule it breaks. Returns undefined, for callers that return "no value".
 */
export function wrongValueIncident(
  ctx: StepContext,
  track: TrackRecord,
  what: string,
  expression: Expression,
  value: unknown,
  rule: string,
  resume: Resume = 'enter',
): undefined {
  const message = `${what} "=${expression.source}" evaluated to ${JSON.stringify(value) ?? String(value)}: ${rule}`;
  raiseIncident(ctx, track, 'expression-failed', resume, message, null);
  return undefined;
}

/**
 * Resolve an incident and pick up where it stopped: a failed job is dispatched again with fresh retries;
 * an element is entered again, or left again. An incident of a user task's transition (a task listener's job
 * failed, or its expression) leaves the track waiting on its task again: the job is dispatched again, or the
 * transition runs again from its first listener (`retryTask`).
 */
export function retryIncident(ctx: StepContext, incidentId: string, retryTask: (task: UserTaskRecord) => void): void {
  const incident = ctx.state.incidents.get(incidentId);
  if (!incident) throw new NotFoundError('incident', `${ctx.id}/${incidentId}`);
  ctx.state.write('incidents').delete(incidentId);
  const track = ctx.state.track(incident.trackId);
  announce(ctx, {
    id: eventId(ctx.id, 'incident.resolved', incidentId),
    type: 'incident.resolved',
    incidentId,
    elementId: incident.nodeId,
  });
  const job = incident.jobId === null ? undefined : ctx.state.jobs.get(incident.jobId);
  if (job) {
    job.retriesLeft = retriesAgain(ctx, job);
    job.notBefore = null;
  }
  const task = job?.taskListener || incident.resume === 'task' ? ctx.state.taskOf(track) : undefined;
  if (task) {
    track.wait = { kind: 'userTask', taskId: task.id };
    move(ctx, track, task.transition?.event === 'canceling' ? 'RETRY_TERMINATE' : 'RETRY_WAIT');
    if (!job) retryTask(task);
    return;
  }
  if (job) {
    track.wait = { kind: 'job', jobId: job.id };
    move(ctx, track, job.listener ? 'RETRY_LISTEN' : 'RETRY_WAIT');
    return;
  }
  track.wait = null;
  // The same activation tries again: it is not announced as entered a second time.
  if (incident.resume !== 'leave') ctx.reentering.add(track.id);
  move(ctx, track, incident.resume === 'leave' ? 'RETRY_LEAVE' : 'RETRY_ENTER');
}

/** The retries a job gets when its incident is retried: its listener's or its element's, afresh. */
function retriesAgain(ctx: StepContext, job: JobRecord): number {
  const source = jobSourceOf(ctx.process, job);
  return source ? freshRetries(ctx, source, variablesOfJob(ctx.state, job)) : ctx.defaultRetries;
}
