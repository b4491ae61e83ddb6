import type { TrackRecord, Variables } from '@thresher/checkpoint';
import { InvalidStateError } from '../common/errors.js';
import type { Node } from '../model/node-types.js';
import { isActivationStandIn, leaveStandIn } from './composites/ad-hoc.js';
import { collectBody, isBodyTrack } from './composites/loops.js';
import { enterTerminateEnd } from './composites/throws.js';
import { chooseFlows, FlowError } from './gateways.js';
import { mapOrIncident, raiseIncident } from './jobs/incidents.js';
import { endsListening, isScopeTrack, runListeners } from './jobs/listeners.js';
import { recordCompensable } from './scoping/ledgers.js';
import { leaveScopeTrack } from './scoping/scope-listeners.js';
import { nodeOf, type StepContext } from './step/context.js';
import { ownedBy } from './step/state.js';
import { touchpointsDecided } from './step/touchpoints.js';
import { move, place, record, spawn } from './step/tracks.js';

/**
 * A track leaves its element: what the element produced is applied (through its output mappings), its
 * boundary events stop waiting, its end listeners run (each a job it waits on), and it moves along the flows
 * chosen — the first itself, every other a new track — or ends when there are none. A track back from an end
 * listener, or retried among them, picks up after its outputs, at the listener it is at (`listening`).
 */
export function leave(ctx: StepContext, track: TrackRecord): void {
  // A process or an event sub-process running its end listeners: a track stands for it.
  if (isScopeTrack(ctx.state, track)) return leaveScopeTrack(ctx, track);
  // An ad-hoc activation's failed output or condition, retried: the activation is looked at again.
  if (isActivationStandIn(ctx, track)) return leaveStandIn(ctx, track);
  const node = nodeOf(ctx, track.nodeId);
  // A looping activity's inner track ends in its body (no flows) once the body has collected what it gave.
  const body = node.loop !== undefined && isBodyTrack(ctx, track, node);
  const host = node.loop !== undefined && !body;
  let mapped: Variables | null = null;
  if (track.listening?.eventType !== 'end') {
    if (host) {
      // The host: each body applied the element's output mappings; a multi-instance host carries its output collection.
      if (track.result !== null) ctx.state.propagate(track.scopePath, track.result);
      delete track.loop;
    } else {
      const outputs = applyOutputs(ctx, track, node);
      if (outputs === false) return;
      mapped = outputs;
      // What the element produced stays on it while its end listeners run (they read it, as in Zeebe), and
      // what they leave for the body's collection is the same whichever step they end in.
      if (mapped !== null && endsListening(ctx, node)) {
        track.result = { ...track.result, ...mapped };
        mapped = null;
      }
    }
    ctx.state.dropWaits(ownedBy(track.id));
  }
  // A looping host has no listeners of its own: each body ran them.
  if (!host && runListeners(ctx, track, 'end', 'leave')) return;
  if (body && !collectBody(ctx, track, node.loop!, mapped)) return;
  let flows: { id: string | null; target: string }[];
  try {
    const decided = ctx.decided.get(track.id);
    const link = node.type === 'intermediateThrowEvent' && node.event?.kind === 'link' ? node.event.name : null;
    // A gateway's start listeners' variables are its locals: its conditions read them, as in Zeebe.
    const view = { ...ctx.state.visible(track.scopePath), ...track.locals };
    flows = body
      ? []
      : decided
        ? node.outgoing.map((id) => ctx.process.flows.get(id)!).filter((f) => f.target === decided.target)
        : link !== null
          ? [linkTo(ctx, node.container, link)]
          : chooseFlows(ctx.process, node, view, ctx.now);
  } catch (error) {
    if (!(error instanceof FlowError)) throw error;
    raiseIncident(ctx, track, error.kind, 'leave', error.message, null);
    return;
  }
  // A compensable activity is in its scope's ledger once it has left (a looping host: each body was).
  if (!host) recordCompensable(ctx, track, node);
  if (!body) touchpointsDecided(ctx, node, flows);
  delete track.listening;
  // A terminate end event with end listeners ends its scope once they ran.
  if (node.type === 'terminateEndEvent') return enterTerminateEnd(ctx, track);
  record(ctx, track);
  track.locals = null;
  track.result = null;
  track.wait = null;
  const [first, ...rest] = flows;
  if (!first) return move(ctx, track, 'END');
  move(ctx, track, 'MOVE');
  place(ctx, track, first.target, first.id);
  // Scheduled a second time (the move already did): a track that moves on takes its next turn before the
  // tracks it spawns, the order every earlier build ran in — and so the visit counts, ids and history order
  // their checkpoints and fixtures recorded.
  ctx.agenda.push(track.id);
  for (const flow of rest) spawn(ctx, track.scopePath, flow.target, flow.id);
}

/**
 * Apply what the element produced: with output mappings, evaluate them over the element's view and
 * propagate the targets (returned); without, propagate the result as it is (null returned). False when an
 * incident was raised.
 */
function applyOutputs(ctx: StepContext, track: TrackRecord, node: Node): Variables | null | false {
  const path = track.scopePath;
  // A compensation handler reads its entry's snapshot; what it produces goes to the live variables.
  const target = ctx.state.outputScope(path);
  if (node.io.outputs.length > 0) {
    const view = { ...ctx.state.visible(path), ...track.locals, ...track.result };
    const outputs = mapOrIncident(ctx, track, node.io.outputs, view, 'leave');
    if (!outputs) return false;
    ctx.state.propagate(target, outputs);
    return outputs;
  }
  // A sub-process produces nothing of its own; an ad-hoc one its output collection.
  if (track.result !== null && (node.type !== 'subProcess' || node.adHoc)) ctx.state.propagate(target, track.result);
  return null;
}

/** A link throw's jump, as a flow without an id to the catch event of that name in its container. */
function linkTo(ctx: StepContext, container: string, name: string): { id: string | null; target: string } {
  for (const node of ctx.process.nodes.values()) {
    if (node.type !== 'intermediateCatchEvent' || node.event.kind !== 'link') continue;
    if (node.container === container && node.event.name === name) return { id: null, target: node.id };
  }
  throw new InvalidStateError(`no link catch event "${name}" in ${container}`);
}
