import type { HeldThen, ScopeRecord, TrackRecord } from '@thresher/checkpoint';
import { taskListenersOf } from '../../model/process-types.js';
import type { StepContext } from '../step/context.js';
import { ownedBy } from '../step/state.js';
import { touchpointInterrupted } from '../step/touchpoints.js';
import { move, standIn } from '../step/tracks.js';
import { fieldsOf, setFields } from './user-task-fields.js';
import { beginTransition } from './user-task-transitions.js';

/**
 * Terminating a user task that has canceling listeners (`zeebe:taskListener eventType="canceling"`), as Zeebe
 * does: the task is not gone at once — its track is `terminating` while the listeners run, one job at a time,
 * and its scope (with its variables) stays until they ran. What interrupted it (a boundary event, an event
 * sub-process, a terminate end event, a cancelled instance) is held meanwhile (`held`), and goes on once every
 * termination it caused is done (`held.ts`). Every other element is terminated at once.
 */

/**
 * Begin terminating the track's user task when it has canceling listeners: true when the cancel must wait (the
 * track is, or already was, terminating; its id is on `ctx.terminating` for whatever cancelled it).
 */
export function startCanceling(ctx: StepContext, track: TrackRecord): boolean {
  const { state } = ctx;
  const task = state.taskOf(track);
  if (!task) return false;
  if (task.transition?.event === 'canceling') {
    ctx.terminating.push(track.id);
    return true;
  }
  if (taskListenersOf(ctx.process, task.nodeId, 'canceling').length === 0) return false;
  // A transition under way stops where it is, its listener's job with it, as the task's termination begins.
  if (task.transition) {
    if (task.transition.jobId) state.write('jobs').delete(task.transition.jobId);
    setFields(task, task.transition.before);
    delete task.transition;
  }
  if (track.wait?.kind === 'incident') state.dropIncident(track.wait.incidentId);
  state.dropWaits(ownedBy(track.id));
  track.wait = { kind: 'userTask', taskId: task.id };
  touchpointInterrupted(ctx, track);
  move(ctx, track, 'TERMINATE');
  ctx.terminating.push(track.id);
  beginTransition(ctx, task, 'canceling', '', fieldsOf(task));
  return true;
}

/** The terminations a cancel since `before` (a length of `ctx.terminating`) began or found under way. */
export function terminationsSince(ctx: StepContext, before: number): string[] {
  return [...new Set(ctx.terminating.slice(before))];
}

/** Hold `track` (an interrupter about to go on) until the tracks `on` are terminated; then it goes on as `then` says. */
export function hold(ctx: StepContext, track: TrackRecord, on: string[], then: HeldThen): void {
  track.wait = { kind: 'held', on, then };
  move(ctx, track, 'HOLD');
}

/**
 * A track standing for an interrupter that has no track of its own (a scope's termination, an event
 * sub-process about to start), held at `nodeId` in the scope at `path`. Never placed: no visit, no history.
 */
export function holdStandIn(ctx: StepContext, path: string, nodeId: string, on: string[], then: HeldThen): void {
  hold(ctx, standIn(ctx, path, nodeId), on, then);
}

/** Whether a scope being released still holds a termination (a terminating track, or a scope kept for one). */
export function holdsTerminations(ctx: StepContext, scope: ScopeRecord): boolean {
  return ctx.state.liveTracks(scope.path).length > 0 || ctx.state.hasChildScope(scope.path);
}
