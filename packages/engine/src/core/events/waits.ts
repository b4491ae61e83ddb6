import {
  CheckpointError,
  checkText,
  type SubscriptionRecord,
  type TimerRecord,
  type TrackRecord,
  type Variables,
  type WaitOwner,
} from '@thresher/checkpoint';
import { ExpressionError, InvalidStateError } from '../../common/errors.js';
import { evaluate } from '../../common/feel.js';
import type { BoundaryEventNode, Node } from '../../model/node-types.js';
import type { EventDefinition } from '../../model/types.js';
import { scheduleTimer, TimerSpecError } from '../../timers/schedule.js';
import { raiseIncident } from '../jobs/incidents.js';
import { announce, nextId, nodeOf, type StepContext } from '../step/context.js';
import { eventId } from '../step/event-ids.js';
import { ownedBy } from '../step/state.js';
import { armCondition } from './condition-waits.js';

/**
 * Arming what an event waits for: a timer (its first due time) or a message or signal subscription, each
 * owned by whoever it wakes (see `wake.ts`).
 */

/**
 * Create the timer or subscription an event waits on, evaluated in `view`. False when its expression
 * failed: an incident is raised on `blame` (re-entered on retry), or, with no track to blame, the event
 * that armed it is refused.
 */
export function arm(
  ctx: StepContext,
  owner: WaitOwner,
  node: Node,
  event: EventDefinition,
  view: Variables,
  blame: TrackRecord | null,
): boolean {
  try {
    switch (event.kind) {
      case 'timer': {
        const schedule = scheduleTimer(event.timer, evaluate(event.timer.expression, view, ctx.now), ctx.now);
        const timer: TimerRecord = { id: nextId(ctx, 'w'), nodeId: node.id, owner, ...schedule };
        ctx.state.write('timers').set(timer.id, timer);
        announce(ctx, {
          id: eventId(ctx.id, 'timer.armed', timer.id),
          type: 'timer.armed',
          timerId: timer.id,
          elementId: node.id,
          dueAt: timer.dueAt,
        });
        return true;
      }
      case 'message':
      case 'signal': {
        const name = evaluate(event.name, view, ctx.now);
        if (typeof name !== 'string' || name === '')
          throw new TimerSpecError(`the ${event.kind} name is ${JSON.stringify(name)}`);
        let correlationKey: string | null = null;
        if (event.kind === 'message' && event.correlationKey) {
          const key = evaluate(event.correlationKey, view, ctx.now);
          if (typeof key !== 'string' && typeof key !== 'number') {
            throw new TimerSpecError(`the correlation key is ${JSON.stringify(key)}, not a string or number`);
          }
          correlationKey = String(key);
        }
        // The store indexes both: one it cannot keep is an incident here, not a refused write later.
        storable(`${event.kind} name`, `${event.kind}:${name}`);
        if (correlationKey !== null) storable('correlation key', correlationKey);
        const subscription: SubscriptionRecord = {
          id: nextId(ctx, 'w'),
          kind: event.kind,
          nodeId: node.id,
          owner,
          name,
          correlationKey,
        };
        ctx.state.write('subscriptions').set(subscription.id, subscription);
        return true;
      }
      case 'conditional':
        // Checked after every step (`conditions.ts`), the first time at the end of the step that armed it.
        armCondition(ctx, owner, node, event, view);
        return true;
      default:
        return true;
    }
  } catch (error) {
    if (!(error instanceof ExpressionError) && !(error instanceof TimerSpecError)) throw error;
    if (blame === null) throw new InvalidStateError(`${node.id}: ${error.message}`);
    raiseIncident(ctx, blame, 'expression-failed', 'enter', `${node.id}: ${error.message}`, null);
    return false;
  }
}

/** Refuses a subscription's indexed text that no store keeps (over `MAX_TEXT_BYTES`, U+0000, a lone surrogate). */
function storable(what: string, text: string): void {
  try {
    checkText(what, text);
  } catch (error) {
    if (error instanceof CheckpointError) throw new TimerSpecError(`the ${what} cannot be stored: ${error.message}`);
    throw error;
  }
}

/** The boundary events attached to an activity. */
export function boundariesOf(ctx: StepContext, activityId: string): BoundaryEventNode[] {
  const ids = ctx.process.boundaries?.get(activityId) ?? [];
  return ids.map((id) => nodeOf(ctx, id) as BoundaryEventNode);
}

/** Arm the timer, message and signal boundary events of the activity `track` is entering. */
export function armBoundaries(ctx: StepContext, track: TrackRecord): boolean {
  const view = { ...ctx.state.visible(track.scopePath), ...track.locals };
  for (const boundary of boundariesOf(ctx, track.nodeId)) {
    const owner: WaitOwner = { kind: 'boundary', trackId: track.id, nodeId: boundary.id };
    if (!arm(ctx, owner, boundary, boundary.event, view, track)) {
      ctx.state.dropWaits(ownedBy(track.id));
      return false;
    }
  }
  return true;
}
