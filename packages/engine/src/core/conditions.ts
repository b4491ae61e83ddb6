/**
 * Conditional intermediate catch events (Camunda 8.9): the condition is checked when the token arrives and,
 * while it waits, after every step — a step is where variables change (a job's or a user task's result, a
 * message's variables, another branch's mappings). The first time it holds, the event completes, once.
 * What waits is the track itself (`wait: event` at a conditional catch), so a restore needs nothing more.
 */
import type { TrackRecord } from '@thresher/checkpoint';
import type { IntermediateCatchEventNode, ProcessDef } from '../model/types.js';
import type { StepContext } from './context.js';
import { evaluateOrIncident, NO_VALUE, wrongValueIncident } from './incidents.js';
import { move } from './tracks.js';

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

/** After a step's tracks have moved: every waiting conditional catch whose condition now holds goes on. */
export function fireConditions(ctx: StepContext): boolean {
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

/** Whether a node is a conditional catch event. */
export function isConditionalCatch(node: IntermediateCatchEventNode): node is ConditionalCatch {
  return node.event.kind === 'conditional';
}
