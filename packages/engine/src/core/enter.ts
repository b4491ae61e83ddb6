import type { TrackRecord } from '@thresher/checkpoint';
import { InvalidStateError } from '../common/errors.js';
import type { BusinessRuleTaskNode, Node } from '../model/node-types.js';
import { isJobNode, listenersOf } from '../model/process-types.js';
import { runScript } from './activities.js';
import { enterCall } from './composites/calls.js';
import { enterLoop, isBodyTrack } from './composites/loops.js';
import { openScope } from './composites/scopes.js';
import { enterTerminateEnd, enterThrow } from './composites/throws.js';
import { enterCatch, enterEventGateway } from './events/catches.js';
import { enterScopeTrack } from './events/event-subprocesses.js';
import { armTimerStart } from './events/timers.js';
import { armBoundaries } from './events/waits.js';
import { enterGateway } from './gateways.js';
import { runDecision } from './jobs/decisions.js';
import { mapOrIncident } from './jobs/incidents.js';
import { jobSpec } from './jobs/job-spec.js';
import { createJob } from './jobs/jobs.js';
import { endsListening, isScopeTrack, runListeners } from './jobs/listeners.js';
import { announce, nodeOf, type StepContext } from './step/context.js';
import { elementInstanceId, trackEventId } from './step/event-ids.js';
import { end, move } from './step/tracks.js';
import { createUserTask } from './user-tasks/user-tasks.js';

/**
 * A track enters its element: the element's input mappings make its locals, its start listeners run (each a
 * job it waits on), its boundary events are armed, and the element does what its type does — each type
 * handled by the module that owns it. A track back from a start listener, or retried past them, picks up
 * after its inputs, at the listener it is at (`listening`).
 */
export function enter(ctx: StepContext, track: TrackRecord): void {
  // A process or an event sub-process running its start listeners: a track stands for it.
  if (isScopeTrack(ctx.state, track)) return enterScopeTrack(ctx, track);
  const node = nodeOf(ctx, track.nodeId);
  const resumed = track.listening !== undefined;
  if (!ctx.reentering.delete(track.id) && !resumed) {
    announce(ctx, {
      id: trackEventId(ctx.id, track, 'entered'),
      type: 'track.entered',
      trackId: track.id,
      elementId: node.id,
      elementInstanceId: elementInstanceId(track),
    });
  }
  // A looping activity's host opens bodies; their inner tracks run the element, with its input mappings and
  // listeners, while its boundary events belong to the host (they interrupt every body at once).
  const loop = node.loop;
  const body = loop !== undefined && isBodyTrack(ctx, track, node);
  const host = loop !== undefined && !body;
  // A join's arrivals wait for each other: its start listeners run once, on the track that goes on.
  const listens = !host && !(isJoin(node) && !resumed) && listenersOf(ctx.process, node.id, 'start').length > 0;
  if (!resumed) {
    // An event-based gateway's winner: its event has happened, and its payload is what the catch event produced.
    const decided = ctx.decided.get(track.id);
    if (decided?.target === node.id) {
      ctx.decided.delete(track.id);
      track.result = decided.variables;
    }
    // A sub-process makes its inputs as it opens its scope, unless its start listeners are to read them first.
    if (!host && node.io.inputs.length > 0 && (node.type !== 'subProcess' || listens)) {
      const locals = mapOrIncident(ctx, track, node.io.inputs, ctx.state.visible(track.scopePath), 'enter');
      if (!locals) return;
      // A modification may have given the activation variables of its own; its input mappings win over them.
      track.locals = track.locals === null ? locals : { ...track.locals, ...locals };
    }
  }
  if (listens && runListeners(ctx, track, 'start', 'enter')) return;
  if (!body && ctx.process.boundaries?.has(node.id) && !armBoundaries(ctx, track)) return;
  if (host) return enterLoop(ctx, track, node, loop);
  run(ctx, track, node);
}

function run(ctx: StepContext, track: TrackRecord, node: Node): void {
  // Service and send tasks, message throws and message end events: a handler does their work.
  if (isJobNode(node)) {
    const spec = jobSpec(ctx, track, node);
    return spec ? createJob(ctx, track, spec) : undefined;
  }
  switch (node.type) {
    case 'startEvent':
      // Only a process-level timer start waits; every other start has already happened.
      if (node.container === ctx.process.id && armTimerStart(ctx, track, node)) return;
      return move(ctx, track, 'COMPLETE');
    case 'task':
    case 'manualTask':
    case 'boundaryEvent':
      return move(ctx, track, 'COMPLETE');
    case 'scriptTask':
      return runScript(ctx, track, node);
    case 'userTask':
      return createUserTask(ctx, track, node);
    case 'exclusiveGateway':
    case 'parallelGateway':
    case 'inclusiveGateway':
      return enterGateway(ctx, track, node);
    case 'eventBasedGateway':
      return enterEventGateway(ctx, track, node);
    case 'intermediateCatchEvent':
    case 'receiveTask':
      return enterCatch(ctx, track, node);
    case 'intermediateThrowEvent':
      // A none throw event passes straight through.
      if (!node.event) return move(ctx, track, 'COMPLETE');
      return enterThrow(ctx, track, node, node.event);
    case 'endEvent':
      // With end listeners or output mappings an end event completes, and ends once it left (`leave.ts`):
      // its outputs are applied there, as Zeebe applies a none end event's.
      if (!node.event) {
        const leaves = endsListening(ctx, node) || node.io.outputs.length > 0;
        return leaves ? move(ctx, track, 'COMPLETE') : end(ctx, track);
      }
      return enterThrow(ctx, track, node, node.event);
    case 'terminateEndEvent':
      return endsListening(ctx, node) ? move(ctx, track, 'COMPLETE') : enterTerminateEnd(ctx, track);
    case 'subProcess':
      return openScope(ctx, track, node);
    case 'callActivity':
      return enterCall(ctx, track, node);
    case 'businessRuleTask':
      // One with a zeebe:taskDefinition is a job, created above.
      return runDecision(ctx, track, node as BusinessRuleTaskNode);
    default:
      return unhandled(node);
  }
}

/** A parallel or inclusive gateway with several incoming flows: where tracks wait for each other. */
function isJoin(node: Node): boolean {
  return (node.type === 'parallelGateway' || node.type === 'inclusiveGateway') && node.incoming.length > 1;
}

/** Every element type the compiler emits is handled above; one that is not fails loudly, never silently waits. */
function unhandled(node: never): never {
  throw new InvalidStateError(`element type "${(node as Node).type}" has no behaviour in the core`);
}
