import type { TrackRecord } from '@thresher/checkpoint';
import type { InstanceState } from './instance-state.js';
import type { Node, ProcessDef } from './model/types.js';

/** Tracks waiting at a join, the earliest per incoming flow. */
function arrivals(state: InstanceState, node: Node, path: string): Map<string, TrackRecord> {
  const byFlow = new Map<string, TrackRecord>();
  for (const track of state.tracks.values()) {
    if (track.nodeId !== node.id || track.scopePath !== path || track.wait?.kind !== 'join') continue;
    const flow = track.viaFlow ?? '';
    if (!byFlow.has(flow)) byFlow.set(flow, track);
  }
  return byFlow;
}

/** A parallel join fires when a track waits on every incoming flow; returns them, survivor first. */
export function parallelJoinReady(state: InstanceState, node: Node, path: string): TrackRecord[] | null {
  const byFlow = arrivals(state, node, path);
  if (!node.incoming.every((flow) => byFlow.has(flow))) return null;
  return node.incoming.map((flow) => byFlow.get(flow)!);
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
  const queue = gateway.incoming.map((flow) => process.flows.get(flow)!.source);
  while (queue.length > 0) {
    const id = queue.pop()!;
    if (id === gateway.id || found.has(id)) continue;
    found.add(id);
    for (const flow of process.nodes.get(id)?.incoming ?? []) queue.push(process.flows.get(flow)!.source);
  }
  byGateway.set(gateway.id, found);
  return found;
}

/**
 * An inclusive join fires when tracks wait on it and no other live track of the scope can still reach it
 * (BPMN's "no token upstream" rule); returns the waiting tracks, one per flow, survivor first.
 */
export function inclusiveJoinReady(
  process: ProcessDef,
  state: InstanceState,
  node: Node,
  path: string,
): TrackRecord[] | null {
  const byFlow = arrivals(state, node, path);
  if (byFlow.size === 0) return null;
  const before = upstream(process, node);
  for (const track of state.liveTracks(path)) {
    if (track.nodeId !== node.id && before.has(track.nodeId)) return null;
  }
  return node.incoming.filter((flow) => byFlow.has(flow)).map((flow) => byFlow.get(flow)!);
}
