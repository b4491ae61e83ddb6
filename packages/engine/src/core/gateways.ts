import type { TrackRecord, Variables } from '@thresher/checkpoint';
import { ExpressionError } from '../common/errors.js';
import { evaluateCondition } from '../common/feel.js';
import type { GatewayNode, Node } from '../model/node-types.js';
import { type Flow, listenersOf, type ProcessDef } from '../model/process-types.js';
import { nodeOf, type StepContext } from './step/context.js';
import type { InstanceState } from './step/state.js';
import { move } from './step/tracks.js';

/**
 * Gateways: which outgoing flows a track takes when it leaves an element (exclusive, inclusive, parallel,
 * and an activity's conditional flows), and the joins where parallel and inclusive gateways merge tracks.
 */

/** Why no flow could be chosen; the core turns it into an incident on the element. */
export class FlowError extends Error {
  constructor(
    readonly kind: 'no-flow-taken' | 'expression-failed',
    message: string,
  ) {
    super(message);
  }
}

function flow(process: ProcessDef, id: string): Flow {
  const found = process.flows.get(id);
  if (!found) throw new Error(`flow ${id} is missing from process ${process.id}`);
  return found;
}

function holds(f: Flow, variables: Variables, now: number): boolean {
  if (f.condition === null) return true;
  try {
    return evaluateCondition(f.condition, variables, now);
  } catch (error) {
    const reason = error instanceof ExpressionError ? error.message : String(error);
    throw new FlowError('expression-failed', `condition of flow "${f.id}" failed: ${reason}`);
  }
}

/**
 * The flows a track takes when it leaves `node`: the first true condition of an exclusive gateway, every
 * true condition of an inclusive gateway, all flows of a parallel gateway; the default when nothing holds.
 * An activity takes its unconditional flows and those whose condition holds (BPMN's conditional flows).
 */
export function chooseFlows(process: ProcessDef, node: Node, variables: Variables, now: number): Flow[] {
  const outgoing = node.outgoing.map((id) => flow(process, id));
  if (node.type === 'parallelGateway') return outgoing;
  const defaultId = 'defaultFlow' in node ? node.defaultFlow : null;
  const candidates = outgoing.filter((f) => f.id !== defaultId);
  let taken: Flow[];
  if (node.type === 'exclusiveGateway') {
    const first = candidates.find((f) => holds(f, variables, now));
    taken = first ? [first] : [];
  } else {
    taken = candidates.filter((f) => holds(f, variables, now));
  }
  if (taken.length > 0 || outgoing.length === 0) return taken;
  if (defaultId) return [flow(process, defaultId)];
  throw new FlowError(
    'no-flow-taken',
    `no outgoing flow of "${node.id}" has a condition that holds, and there is no default flow`,
  );
}

/** Enter a gateway: a fork passes straight through; a join waits, and a parallel join fires when all arrived. */
export function enterGateway(ctx: StepContext, track: TrackRecord, node: GatewayNode): void {
  // A join's survivor back from the gateway's start listeners has joined already.
  if (node.type === 'exclusiveGateway' || node.incoming.length <= 1 || track.listening) {
    return move(ctx, track, 'COMPLETE');
  }
  track.wait = { kind: 'join' };
  move(ctx, track, 'WAIT');
  if (node.type !== 'parallelGateway') return;
  const merged = parallelJoinReady(ctx.state, node, track.scopePath);
  if (merged) merge(ctx, merged);
}

/** Fire every inclusive join no live track can still reach; true when one fired. */
export function fireInclusiveJoins(ctx: StepContext): boolean {
  let fired = false;
  for (const track of [...ctx.state.tracks.values()]) {
    if (track.state !== 'waiting' || track.wait?.kind !== 'join') continue;
    const node = nodeOf(ctx, track.nodeId);
    if (node.type !== 'inclusiveGateway') continue;
    const merged = inclusiveJoinReady(ctx.process, ctx.state, node, track.scopePath);
    if (merged) {
      merge(ctx, merged);
      fired = true;
    }
  }
  return fired;
}

/**
 * The first track continues through the join; the others it absorbed end there. The gateway's start
 * listeners run once the join fired, on the survivor, which enters the gateway again for them.
 */
function merge(ctx: StepContext, [survivor, ...absorbed]: TrackRecord[]): void {
  for (const track of absorbed) {
    track.wait = null;
    move(ctx, track, 'END');
  }
  survivor!.wait = null;
  if (listenersOf(ctx.process, survivor!.nodeId, 'start').length === 0) return move(ctx, survivor!, 'RESUME');
  survivor!.listening = { eventType: 'start', done: 0 };
  move(ctx, survivor!, 'JOINED');
}

/** Tracks waiting at a join, the earliest per incoming flow. */
function arrivals(state: InstanceState, node: Node, path: string): Map<string, TrackRecord> {
  const byFlow = new Map<string, TrackRecord>();
  for (const track of state.tracks.values()) {
    if (track.nodeId !== node.id || track.scopePath !== path || track.wait?.kind !== 'join') continue;
    const flowId = track.viaFlow ?? '';
    if (!byFlow.has(flowId)) byFlow.set(flowId, track);
  }
  return byFlow;
}

/** A parallel join fires when a track waits on every incoming flow; returns them, survivor first. */
function parallelJoinReady(state: InstanceState, node: Node, path: string): TrackRecord[] | null {
  const byFlow = arrivals(state, node, path);
  if (!node.incoming.every((f) => byFlow.has(f))) return null;
  return node.incoming.map((f) => byFlow.get(f)!);
}

const upstreamCache = new WeakMap<ProcessDef, Map<string, Set<string>>>();

/** Every element of the gateway's container from which a path leads to it without passing through it. */
function upstream(process: ProcessDef, gateway: Node): Set<string> {
  let byGateway = upstreamCache.get(process);
  if (!byGateway) {
    byGateway = new Map();
    upstreamCache.set(process, byGateway);
  }
  let found = byGateway.get(gateway.id);
  if (found) return found;
  found = new Set();
  const queue = gateway.incoming.map((f) => process.flows.get(f)!.source);
  while (queue.length > 0) {
    const id = queue.pop()!;
    if (id === gateway.id || found.has(id)) continue;
    found.add(id);
    for (const f of process.nodes.get(id)?.incoming ?? []) queue.push(process.flows.get(f)!.source);
  }
  byGateway.set(gateway.id, found);
  return found;
}

/**
 * An inclusive join fires when tracks wait on it and no other live track of the scope can still reach it
 * (BPMN's "no token upstream" rule); returns the waiting tracks, one per flow, survivor first.
 */
function inclusiveJoinReady(process: ProcessDef, state: InstanceState, node: Node, path: string): TrackRecord[] | null {
  const byFlow = arrivals(state, node, path);
  if (byFlow.size === 0) return null;
  const before = upstream(process, node);
  for (const track of state.liveTracks(path)) {
    if (track.nodeId !== node.id && before.has(track.nodeId)) return null;
  }
  return node.incoming.filter((f) => byFlow.has(f)).map((f) => byFlow.get(f)!);
}
