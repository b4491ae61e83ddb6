import type { JobRecord, TrackRecord, Variables } from '@thresher/checkpoint';
import type { Node } from '../../model/node-types.js';
import { listenersOf } from '../../model/process-types.js';
import type { ListenerEvent } from '../../model/types.js';
import type { StepContext } from '../step/context.js';
import type { InstanceState } from '../step/state.js';
import { move } from '../step/tracks.js';
import { jobSpec } from './job-spec.js';
import { createJob, jobVariables } from './jobs.js';

/**
 * Execution listeners (`zeebe:executionListener`, Camunda 8.6+), run as Zeebe runs them: jobs of their own
 * kind, one at a time in model order, the element waiting on each. Start listeners run once the element's
 * input mappings are made and before it does its work; end listeners once its output mappings are applied
 * and before it leaves. How far a track is in them is on its record (`listening`), so a restore, or the retry
 * of an incident, picks up at the listener it stopped at and never runs a completed one again.
 */

/**
 * Whether a track stands for its scope rather than for an element in it: a process and an event sub-process
 * have no track of their own, so their listeners run on a track at the container's id, in its own scope.
 */
export function isScopeTrack(state: InstanceState, track: TrackRecord): boolean {
  const scope = state.scopes.get(track.scopePath);
  return scope !== undefined && scope.hostTrack === null && scope.nodeId === track.nodeId;
}

/** Whether an element has end listeners to run before it leaves (an end event: before it ends). */
export function endsListening(ctx: StepContext, node: Node): boolean {
  return listenersOf(ctx.process, node.id, 'end').length > 0;
}

/**
 * Run the track's next listener of `event`: true while one is due (the track now waits on its job, or on an
 * incident where its type or retries failed, which `resume` picks up), false once every one has completed.
 */
export function runListeners(
  ctx: StepContext,
  track: TrackRecord,
  event: ListenerEvent,
  resume: 'enter' | 'leave',
): boolean {
  const listeners = listenersOf(ctx.process, track.nodeId, event);
  if (listeners.length === 0) return false;
  if (track.listening?.eventType !== event) track.listening = { eventType: event, done: 0 };
  const index = track.listening.done;
  const listener = listeners[index];
  if (!listener) return false;
  const position = { eventType: event, index };
  const view = jobVariables(ctx.state, track, position);
  const spec = jobSpec(ctx, track, listener, 'zeebe:executionListener', resume, view);
  if (spec) createJob(ctx, track, spec, position);
  return true;
}

/**
 * A listener's job completed: its variables go where Zeebe puts them — a start listener's are locals of its
 * element, an end listener's locals of the element's flow scope (a process's own: the process's) — and the
 * track goes back to entering or leaving its element, where the next listener, or the element, runs.
 */
export function listened(
  ctx: StepContext,
  track: TrackRecord,
  listener: NonNullable<JobRecord['listener']>,
  result: Variables,
): void {
  const { state } = ctx;
  const ownScope = isScopeTrack(state, track);
  if (listener.eventType === 'start') {
    if (ownScope) Object.assign(state.scope(track.scopePath).data, result);
    else track.locals = { ...track.locals, ...result };
  } else {
    const scope = state.scope(track.scopePath);
    const target = ownScope ? (scope.parentPath ?? scope.path) : state.outputScope(track.scopePath);
    Object.assign(state.scope(target).data, result);
  }
  track.listening = { ...track.listening!, done: listener.index + 1 };
  move(ctx, track, listener.eventType === 'start' ? 'STARTED' : 'ENDED');
}
