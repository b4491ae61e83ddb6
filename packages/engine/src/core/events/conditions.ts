/**
 * Conditional events (Camunda 8.9). A waiting conditional event is a `ConditionRecord`, armed and dropped as
 * timers and subscriptions are (`waits.ts`), and checked after every step — a step is where variables change
 * (a job's or a user task's result, a message's variables, another branch's mappings); with a
 * `zeebe:conditionalFilter`, only after a step that created or updated a variable it names.
 *
 * - An intermediate catch event checks its condition as the token arrives; if it does not hold, the track
 *   waits on a record, and the first check that finds it true completes the event, once. A condition that
 *   fails or is neither true nor false is an incident on the track; its retry enters the event again.
 * - A boundary event (while its activity runs) and an event sub-process start (while its scope is open)
 *   fire when the condition turns true: an interrupting one once; a non-interrupting one again only after
 *   the condition was false at a check (`holding`). A condition that fails there counts as not holding.
 */
import type { ConditionRecord, TrackRecord, Variables } from '@thresher/checkpoint';
import { ExpressionError } from '../../common/errors.js';
import { evaluate } from '../../common/feel.js';
import type { IntermediateCatchEventNode } from '../../model/node-types.js';
import type { ConditionFilter, EventDefinition } from '../../model/types.js';
import { evaluateOrIncident, NO_VALUE, wrongValueIncident } from '../jobs/incidents.js';
import { nodeOf, type StepContext } from '../step/context.js';
import { ownedBy } from '../step/state.js';
import { move } from '../step/tracks.js';
import { armCondition, snapshot } from './condition-waits.js';
import { wake } from './wake.js';

type Conditional = Extract<EventDefinition, { kind: 'conditional' }>;
type ConditionalCatch = IntermediateCatchEventNode & { event: Conditional };

/** Whether a node is a conditional catch event. */
export function isConditionalCatch(node: IntermediateCatchEventNode): node is ConditionalCatch {
  return node.event.kind === 'conditional';
}

/** Whether the catch's condition holds now; null when it could not be read (an incident was raised). */
function catchHolds(ctx: StepContext, track: TrackRecord, node: ConditionalCatch): boolean | null {
  const value = evaluateOrIncident(ctx, track, node.event.condition, 'enter');
  if (value === NO_VALUE) return null;
  if (value === true) return true;
  if (value === false || value === null) return false;
  wrongValueIncident(ctx, track, 'condition', node.event.condition, value, 'it must be true or false');
  return null;
}

/** The token arrives: it passes when the condition holds, else waits for a step that makes it hold. */
export function enterConditional(ctx: StepContext, track: TrackRecord, node: ConditionalCatch): void {
  const now = catchHolds(ctx, track, node);
  if (now === null) return;
  if (now) return move(ctx, track, 'COMPLETE');
  const view = { ...ctx.state.visible(track.scopePath), ...track.locals };
  armCondition(ctx, { kind: 'track', trackId: track.id }, node, node.event, view);
  track.wait = { kind: 'event' };
  move(ctx, track, 'WAIT');
}

/** After a step's tracks have moved: every waiting conditional event whose condition turned true fires. */
export function fireConditions(ctx: StepContext): boolean {
  if (ctx.state.conditions.size === 0) return false;
  let fired = false;
  // A snapshot: firing one drops waits (an interrupting one, a catch) and arms others (a scope that opens).
  for (const record of [...ctx.state.conditions.values()]) {
    if (!ctx.state.conditions.has(record.id)) continue;
    const view = viewOf(ctx, record);
    if (view === null) continue;
    const node = nodeOf(ctx, record.nodeId);
    const event = 'event' in node ? node.event : undefined;
    if (event?.kind !== 'conditional') continue;
    const conditions = ctx.state.write('conditions');
    let current = record;
    if (event.filter) {
      const seen = snapshot(event.filter, view);
      const changed = changedSince(event.filter, record.seen ?? {}, seen);
      current = { ...record, seen };
      conditions.set(record.id, current);
      if (!changed) continue;
    }
    const holds = check(ctx, current, event, view);
    if (holds === null || holds === current.holding) continue;
    conditions.set(record.id, { ...current, holding: holds });
    if (!holds) continue;
    if (!wake(ctx, record.owner, {})) conditions.delete(record.id);
    fired = true;
  }
  return fired;
}

/** A catch's condition strictly (an incident when it cannot be read); a boundary's or start's leniently. */
function check(ctx: StepContext, record: ConditionRecord, event: Conditional, view: Variables): boolean | null {
  if (record.owner.kind === 'track') {
    const track = ctx.state.tracks.get(record.owner.trackId)!;
    const holds = catchHolds(ctx, track, nodeOf(ctx, record.nodeId) as ConditionalCatch);
    if (holds === null) ctx.state.dropWaits(ownedBy(track.id));
    return holds;
  }
  try {
    return evaluate(event.condition, view, ctx.now) === true;
  } catch (error) {
    if (error instanceof ExpressionError) return false;
    throw error;
  }
}

/** The variables the owner of a condition sees; null when it is gone (its waits are dropped with it). */
function viewOf(ctx: StepContext, record: ConditionRecord): Variables | null {
  const { owner } = record;
  if (owner.kind === 'eventSubProcess') {
    return ctx.state.scopes.get(owner.scopePath)?.state === 'active' ? ctx.state.visible(owner.scopePath) : null;
  }
  const track = ctx.state.tracks.get(owner.trackId);
  return track ? { ...ctx.state.visible(track.scopePath), ...track.locals } : null;
}

/** Whether a filtered variable was created or updated between two snapshots, as the filter's events say. */
function changedSince(filter: ConditionFilter, before: Record<string, string>, after: Record<string, string>): boolean {
  return Object.entries(after).some(([name, digest]) => {
    const was = before[name];
    if (was === undefined) return filter.events.includes('create');
    return was !== digest && filter.events.includes('update');
  });
}
