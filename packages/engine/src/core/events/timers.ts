import type { TimerRecord, TrackRecord, Variables, WaitOwner } from '@thresher/checkpoint';
import { ExpressionError, InvalidStateError } from '../../common/errors.js';
import { evaluate } from '../../common/feel.js';
import type { Node, StartEventNode } from '../../model/node-types.js';
import { timerStartOccurrence } from '../../timers/occurrences.js';
import { isCronCycle, nextFiring, type TimerSchedule, TimerSpecError } from '../../timers/schedule.js';
import { announce, nextId, nodeOf, type StepContext } from '../step/context.js';
import { eventId } from '../step/event-ids.js';
import { postNextStart } from '../step/outbox.js';
import { move } from '../step/tracks.js';
import { arm } from './waits.js';
import { wake } from './wake.js';

/** BPMN timers: a timer falling due, the rest of its cycle, and a process waiting at a timer start event. */

/** A timer fell due: wake its owner, and re-arm what is left of a cycle for a non-interrupting owner. */
export function fireTimer(ctx: StepContext, timerId: string): void {
  const timer = ctx.state.timers.get(timerId);
  if (!timer || timer.dueAt > ctx.now) return;
  ctx.state.write('timers').delete(timerId);
  announce(ctx, {
    id: eventId(ctx.id, 'timer.fired', timer.id, timer.dueAt),
    type: 'timer.fired',
    timerId,
    elementId: timer.nodeId,
  });
  const node = nodeOf(ctx, timer.nodeId);
  const next = timer.cycle ? nextOccurrence(ctx, timer, node) : null;
  const keepsWaiting = wake(ctx, timer.owner, {});
  if (!next) return;
  if (node.type === 'startEvent' && node.container === ctx.process.id) {
    // A timer start event's cycle goes on in a new instance, waiting for the next occurrence; this one
    // runs the process. Recorded in the outbox so a crash cannot lose the rest of the cycle.
    const occurrence = timerStartOccurrence(ctx.id) + 1;
    postNextStart(ctx, node.id, occurrence, next);
    return;
  }
  if (keepsWaiting) ctx.state.write('timers').set(timer.id, { ...timer, ...next });
}

/**
 * The next occurrence of a timer's cycle, or null when it is done. A cron cycle is stored without its
 * text (`intervalMs` 0): the element's timer expression is evaluated again, in the variables its timer
 * was armed in (the host activity's, or the event sub-process's scope).
 */
function nextOccurrence(ctx: StepContext, timer: TimerRecord, node: Node): TimerSchedule | null {
  const event = 'event' in node ? node.event : undefined;
  if (event?.kind !== 'timer' || !timer.cycle)
    throw new InvalidStateError(`timer ${timer.id}: ${node.id} has no timer cycle`);
  try {
    let value: unknown;
    if (isCronCycle(timer.cycle)) {
      const owner = timer.owner;
      let view: Variables;
      if (owner.kind === 'eventSubProcess') view = ctx.state.visible(owner.scopePath);
      else {
        const host = ctx.state.tracks.get(owner.trackId);
        if (!host) throw new InvalidStateError(`timer ${timer.id}: track ${owner.trackId} is gone`);
        view = { ...ctx.state.visible(host.scopePath), ...host.locals };
      }
      value = evaluate(event.timer.expression, view, ctx.now);
    }
    return nextFiring(event.timer, value, timer.dueAt, timer.cycle, ctx.now);
  } catch (error) {
    // Only a FEEL cron expression re-evaluated to something unschedulable gets here (a literal that was
    // armed once always has a next occurrence): the cycle ends with this firing.
    if (!(error instanceof ExpressionError) && !(error instanceof TimerSpecError)) throw error;
    return null;
  }
}

/**
 * A process-level timer start event: the instance waits at it for its timer — armed from its expression
 * for a cycle's first occurrence, or preset by the occurrence before it. False when the start event is
 * not a timer's.
 */
export function armTimerStart(ctx: StepContext, track: TrackRecord, node: StartEventNode): boolean {
  if (node.event?.kind !== 'timer') return false;
  const owner: WaitOwner = { kind: 'track', trackId: track.id };
  if (ctx.presetTimer) {
    const id = nextId(ctx, 'w');
    ctx.state.write('timers').set(id, { id, nodeId: node.id, owner, ...ctx.presetTimer });
  } else if (!arm(ctx, owner, node, node.event, ctx.state.visible(track.scopePath), track)) {
    return true;
  }
  track.wait = { kind: 'event' };
  move(ctx, track, 'WAIT');
  return true;
}
