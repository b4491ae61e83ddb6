import type { TrackRecord, Variables } from '@thresher/checkpoint';
import { InvalidStateError } from '../../common/errors.js';
import type { BoundaryEventNode, EndEventNode, IntermediateThrowEventNode } from '../../model/node-types.js';
import type { EventDefinition } from '../../model/types.js';
import { eventSubProcessCatcher, startEventSubProcess } from '../events/event-subprocesses.js';
import { interruptFrom } from '../events/interrupts.js';
import { boundariesOf } from '../events/waits.js';
import { evaluateOrIncident, NO_VALUE, raiseIncident } from '../jobs/incidents.js';
import { endsListening } from '../jobs/listeners.js';
import { throwToParent } from '../scoping/call-outcomes.js';
import { cancelInside } from '../scoping/cancel.js';
import { finishInstance, terminateScope } from '../scoping/scope-moves.js';
import { announce, nodeOf, type StepContext } from '../step/context.js';
import { eventId } from '../step/event-ids.js';
import { postSignal } from '../step/outbox.js';
import { end, move } from '../step/tracks.js';
import { holdStandIn, terminationsSince } from '../user-tasks/terminations.js';
import { enterCancelEnd, isSweepScope, throwCompensation } from './compensation.js';
import { isBodyTrack } from './loops.js';

/**
 * What throw events do — signals (into the outbox), escalations and errors (to the nearest catcher), links
 * (a jump), terminate (an end to the scope) — and how a thrown error or escalation finds its catcher.
 */

/** Enter a throw or end event with a signal, escalation, link or error definition. */
export function enterThrow(
  ctx: StepContext,
  track: TrackRecord,
  node: IntermediateThrowEventNode | EndEventNode,
  event: EventDefinition,
): void {
  const ends = node.type === 'endEvent';
  const view = (): Variables => ({ ...ctx.state.visible(track.scopePath), ...track.locals });
  switch (event.kind) {
    case 'signal': {
      const name = evaluateOrIncident(ctx, track, event.name, 'enter');
      if (name === NO_VALUE) return;
      // Recorded in the outbox with this step, so a crash before delivery cannot lose it.
      postSignal(ctx, track, String(name));
      return move(ctx, track, 'COMPLETE');
    }
    case 'escalation': {
      const code = event.code ?? '';
      // An end event with end listeners completes, and ends once they ran (`leave.ts`).
      const endsNow = ends && !endsListening(ctx, node);
      if (endsNow) ctx.state.done.completed.push({ node: node.id, scope: track.scopePath, track: track.id });
      throwEscalation(ctx, track, code, view());
      // An interrupting catcher may have cancelled the thrower (its end listeners never run, as in Zeebe);
      // otherwise it goes on (or ends).
      if (track.state !== 'cancelled') move(ctx, track, endsNow ? 'END' : 'COMPLETE');
      return;
    }
    case 'link':
      return move(ctx, track, 'COMPLETE');
    case 'error': {
      const code = event.code ?? '';
      ctx.state.done.completed.push({ node: node.id, scope: track.scopePath, track: track.id });
      if (throwError(ctx, track, code, view())) {
        if (track.state !== 'cancelled') move(ctx, track, 'END');
        return;
      }
      ctx.state.done.completed.pop();
      raiseIncident(ctx, track, 'uncaught-error', 'enter', `uncaught BPMN error ${code} thrown by "${node.id}"`, null);
      return;
    }
    case 'compensate':
      return throwCompensation(ctx, track, event.activity, null);
    case 'cancel':
      return enterCancelEnd(ctx, track);
    case 'message':
    case 'timer':
      // A message throw runs as a job (see `enter.ts`); the compiler refuses a timer throw.
      throw new InvalidStateError(`${node.id}: a ${event.kind} throw is not a throw this module runs`);
  }
}

/**
 * Throw a BPMN error from `from` (a track at a task whose handler threw it, or at an error end event):
 * the nearest error boundary with that code (or none) on the activity or an enclosing sub-process catches
 * it, interrupting what it is attached to. False when nothing catches it.
 */
export function throwError(ctx: StepContext, from: TrackRecord, code: string, variables: Variables): boolean {
  return propagate(ctx, from, 'error', code, variables);
}

/**
 * Throw an escalation from `from`: caught like an error, but a non-interrupting catcher lets the thrower
 * go on, and nothing happens when no one catches it.
 */
export function throwEscalation(ctx: StepContext, from: TrackRecord, code: string, variables: Variables): boolean {
  return propagate(ctx, from, 'escalation', code, variables);
}

/**
 * Find the nearest catcher of an error or escalation: a boundary on the activity, then an event
 * sub-process of its scope, then the same for the enclosing sub-process, up to the process — and then, for
 * a called child, its parent's call activity.
 */
function propagate(
  ctx: StepContext,
  from: TrackRecord,
  kind: 'error' | 'escalation',
  code: string,
  variables: Variables,
): boolean {
  for (let track: TrackRecord | undefined = from; track; ) {
    // A looping activity's inner track has no catchers of its own: its host's boundaries catch for it.
    if (isBodyTrack(ctx, track, nodeOf(ctx, track.nodeId))) {
      track = ctx.state.tracks.get(ctx.state.scope(track.scopePath).hostTrack!);
      continue;
    }
    const boundary = boundaryCatcher(ctx, track.nodeId, kind, code);
    if (boundary) {
      announceCaught(ctx, from, boundary.id, code);
      interruptFrom(ctx, track, boundary, variables);
      return true;
    }
    const start = eventSubProcessCatcher(ctx, track.scopePath, kind, code);
    if (start) {
      announceCaught(ctx, from, start.id, code);
      startEventSubProcess(ctx, track.scopePath, start, variables);
      return true;
    }
    const scope = ctx.state.scopes.get(track.scopePath);
    // A compensation handler's error stops at its sweep: an incident there, never a catch around the thrower.
    if (isSweepScope(ctx, scope)) return false;
    const host: string | null | undefined = scope?.hostTrack;
    track = host ? ctx.state.tracks.get(host) : undefined;
  }
  // A called child's parent may catch it at its call activity; uncaught, it stays uncaught here meanwhile (an
  // error's incident is cancelled with the child when the parent catches it).
  throwToParent(ctx, kind, code, variables);
  return false;
}

function announceCaught(ctx: StepContext, from: TrackRecord, catcherId: string, code: string): void {
  announce(ctx, {
    id: eventId(ctx.id, 'error.caught', from.id, from.attempt, catcherId),
    type: 'error.caught',
    elementId: catcherId,
    errorCode: code,
  });
}

/** The boundary of an activity that catches an error or escalation `code`: an exact code first, then a catch-all. */
function boundaryCatcher(
  ctx: StepContext,
  activityId: string,
  kind: 'error' | 'escalation',
  code: string,
): BoundaryEventNode | undefined {
  const catchers = boundariesOf(ctx, activityId).filter((b) => b.event.kind === kind);
  const codeOf = (b: BoundaryEventNode) => (b.event.kind === kind ? b.event.code : undefined);
  return catchers.find((b) => codeOf(b) === code) ?? catchers.find((b) => codeOf(b) === null);
}

/** A terminate end event ends the track, then every other track of its scope and its inner scopes. */
export function enterTerminateEnd(ctx: StepContext, track: TrackRecord): void {
  end(ctx, track);
  terminate(ctx, track.scopePath, track.nodeId);
}

/**
 * Cancel every track of the scope at `path` and its inner scopes; at the root the instance ends
 * `terminated` (by the terminate end event `nodeId`, or `''` when it was cancelled).
 */
export function terminate(ctx: StepContext, path: string, nodeId: string): void {
  const before = ctx.terminating.length;
  cancelInside(ctx, path);
  // User tasks still running their canceling listeners: the scope ends once they ran.
  const on = terminationsSince(ctx, before);
  if (on.length > 0) return holdStandIn(ctx, path, nodeId || ctx.process.id, on, { kind: 'terminate', nodeId });
  if (path !== '/') return;
  terminateScope(ctx, ctx.state.scope('/'));
  finishInstance(ctx, 'terminated', nodeId);
}
