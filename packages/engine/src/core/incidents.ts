import type { IncidentRecord, JobRecord, TrackRecord, Variables } from '@thresher/checkpoint';
import { ExpressionError, NotFoundError } from '../common/errors.js';
import { evaluate } from '../common/feel.js';
import { type Expression, isJobNode, listenersOf, type Mapping } from '../model/types.js';
import { announce, nextId, nodeOf, type StepContext } from './context.js';
import { eventId } from './event-ids.js';
import { freshRetries } from './job-retries.js';
import { jobVariables } from './jobs.js';
import { MappingError, runMappings } from './mappings.js';
import { newIncident } from './records.js';
import { move } from './tracks.js';

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
  resume: 'enter' | 'leave',
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
  resume: 'enter' | 'leave',
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
  resume: 'enter' | 'leave' = 'enter',
): undefined {
  const message = `${what} "=${expression.source}" evaluated to ${JSON.stringify(value) ?? String(value)}: ${rule}`;
  raiseIncident(ctx, track, 'expression-failed', resume, message, null);
  return undefined;
}

/**
 * Resolve an incident and pick up where it stopped: a failed job is dispatched again with fresh retries;
 * an element is entered again, or left again.
 */
export function retryIncident(ctx: StepContext, incidentId: string): void {
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
    job.retriesLeft = retriesAgain(ctx, track, job);
    job.notBefore = null;
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
function retriesAgain(ctx: StepContext, track: TrackRecord, job: JobRecord): number {
  const view = jobVariables(ctx.state, track, job.listener);
  if (job.listener) {
    const listener = listenersOf(ctx.process, job.nodeId, job.listener.eventType)[job.listener.index];
    return listener ? freshRetries(ctx, listener, view) : ctx.defaultRetries;
  }
  const node = nodeOf(ctx, job.nodeId);
  return isJobNode(node) ? freshRetries(ctx, node, view) : ctx.defaultRetries;
}
