/**
 * Conditional events (Camunda 8.9). Every condition is checked after every step — a step is where variables
 * change (a job's or a user task's result, a message's variables, another branch's mappings).
 *
 * - An intermediate catch event checks it as the token arrives and then while it waits; the first time it
 *   holds, the event completes, once. What waits is the track itself (`wait: event` at the catch).
 * - A boundary event (while its activity runs) and an event sub-process start (while its scope is open)
 *   wait as a `ConditionRecord`, armed as timers and subscriptions are and dropped with them. They fire when
 *   the condition turns true: an interrupting one once; a non-interrupting one again only after the
 *   condition was false at a check (`holding`), not on every step while it stays true. A condition that
 *   fails or is neither true nor false counts as not holding there, as no element can take an incident.
 */
import type { ConditionRecord, TrackRecord, Variables } from '@thresher/checkpoint';
import { ExpressionError } from '../common/errors.js';
import { evaluate } from '../common/feel.js';
import type { BoundaryEventNode, IntermediateCatchEventNode, ProcessDef, StartEventNode } from '../model/types.js';
import { nodeOf, type StepContext } from './context.js';
import { evaluateOrIncident, NO_VALUE, wrongValueIncident } from './incidents.js';
import { move } from './tracks.js';
import { wake } from './wake.js';

type ConditionalCatch = IntermediateCatchEventNode & { event: { kind: 'conditional' } };

const conditionalCatches = new WeakMap<ProcessDef, ReadonlySet<string>>();

/** The process's conditional catch events: none for most, and then no step looks at its tracks. */
function catchesOf(process: ProcessDef): ReadonlySet<string> {
  let ids = conditionalCatches.get(process);
  if (ids === undefined) {
    ids = new Set(
      [...process.nodes.values()]
        .filter((node) => node.type === 'intermediateCatchEvent' && node.event.kind === 'conditional')
        .map((node) => node.id),
    );
    conditionalCatches.set(process, ids);
  }
  return ids;
}

/** Whether the condition holds now; null when it could not be read (an incident was raised). */
function holds(ctx: StepContext, track: TrackRecord, node: ConditionalCatch): boolean | null {
  const value = evaluateOrIncident(ctx, track, node.event.condition, 'enter');
  if (value === NO_VALUE) return null;
  if (value === true) return true;
  if (value === false || value === null) return false;
  wrongValueIncident(ctx, track, 'condition', node.event.condition, value, 'it must be true or false');
  return null;
}

/** The token arrives: it passes when the condition holds, else waits for a step that makes it hold. */
export function enterConditional(ctx: StepContext, track: TrackRecord, node: ConditionalCatch): void {
  const now = holds(ctx, track, node);
  if (now === null) return;
  if (now) return move(ctx, track, 'COMPLETE');
  track.wait = { kind: 'event' };
  move(ctx, track, 'WAIT');
}

/** After a step's tracks have moved: every conditional event whose condition now holds goes on. */
export function fireConditions(ctx: StepContext): boolean {
  const caught = fireCatches(ctx);
  return fireWaits(ctx) || caught;
}

function fireCatches(ctx: StepContext): boolean {
  const ids = catchesOf(ctx.process);
  if (ids.size === 0) return false;
  let fired = false;
  for (const track of ctx.state.tracks.values()) {
    if (track.state !== 'waiting' || track.wait?.kind !== 'event' || !ids.has(track.nodeId)) continue;
    const node = ctx.process.nodes.get(track.nodeId) as ConditionalCatch;
    if (holds(ctx, track, node) !== true) continue;
    track.wait = null;
    move(ctx, track, 'RESUME');
    fired = true;
  }
  return fired;
}

/** Boundary events and event sub-process starts: each fires when its condition turns true. */
function fireWaits(ctx: StepContext): boolean {
  if (ctx.state.conditions.size === 0) return false;
  let fired = false;
  // A snapshot: firing one drops waits (an interrupting one) and arms others (a scope that opens).
  for (const record of [...ctx.state.conditions.values()]) {
    if (!ctx.state.conditions.has(record.id)) continue;
    const view = viewOf(ctx, record);
    if (view === null) continue;
    const node = nodeOf(ctx, record.nodeId) as BoundaryEventNode | StartEventNode;
    const holds = node.event?.kind === 'conditional' && checks(node.event.condition, view, ctx.now);
    if (holds === record.holding) continue;
    const conditions = ctx.state.write('conditions');
    if (!holds) {
      conditions.set(record.id, { ...record, holding: false });
      continue;
    }
    conditions.set(record.id, { ...record, holding: true });
    if (!wake(ctx, record.owner, {})) conditions.delete(record.id);
    fired = true;
  }
  return fired;
}

/** The variables the owner of a condition sees; null when it is gone (its waits are dropped with it). */
function viewOf(ctx: StepContext, record: ConditionRecord): Variables | null {
  const { owner } = record;
  if (owner.kind === 'eventSubProcess') {
    return ctx.state.scopes.get(owner.scopePath)?.state === 'active' ? ctx.state.visible(owner.scopePath) : null;
  }
  const host = ctx.state.tracks.get(owner.trackId);
  return host ? { ...ctx.state.visible(host.scopePath), ...host.locals } : null;
}

function checks(condition: ConditionalCatch['event']['condition'], view: Variables, now: number): boolean {
  try {
    return evaluate(condition, view, now) === true;
  } catch (error) {
    if (error instanceof ExpressionError) return false;
    throw error;
  }
}

/** Whether a node is a conditional catch event. */
export function isConditionalCatch(node: IntermediateCatchEventNode): node is ConditionalCatch {
  return node.event.kind === 'conditional';
}
