/**
 * Process-instance modification, as Zeebe modifies an instance: elements activated (the flow scopes they need
 * reused, or created without their start events, their boundary and event sub-process waits armed) and element
 * instances terminated (a flow scope left with nothing in it terminated too, up to the instance), in one step.
 * A refusal names the element and the rule, and changes nothing (the loop reverts a refused step).
 */
import type { ScopeRecord, TrackRecord, Variables } from '@thresher/checkpoint';
import { InvalidArgumentError, NotFoundError } from '../common/errors.js';
import type { Node } from '../model/node-types.js';
import { terminate } from './composites/throws.js';
import { armEventSubProcesses } from './events/event-subprocesses.js';
import { armBoundaries } from './events/waits.js';
import { cancel } from './scoping/cancel.js';
import { terminateScope } from './scoping/scope-moves.js';
import { announce, type StepContext } from './step/context.js';
import { elementInstanceId, eventId, trackEventId } from './step/event-ids.js';
import type { ActivateInstruction, InstanceEventOf } from './step/instance-event.js';
import { isBodyScope, newScope, newTrack, scopePath } from './step/records.js';
import { liveActivation } from './step/set-variables.js';
import { move, place, spawn } from './step/tracks.js';

/** Element types Zeebe refuses to activate, and why. */
const NOT_ACTIVATED: Partial<Record<Node['type'], string>> = {
  startEvent: 'a start event is where a scope begins, not a place to put a token',
  boundaryEvent: 'a boundary event happens to its activity; it cannot be activated alone',
};

export function modifyInstance(ctx: StepContext, event: InstanceEventOf<'instance.modify'>): void {
  const { state } = ctx;
  if (state.instance.status !== 'running') throw new NotFoundError('instance', ctx.id);
  // Given again under its id (a retry after a crash, a batch item picked up twice), it changes nothing.
  if (state.alreadyReceived(event.operationId)) return;
  const terminated = event.terminate.map((id) => {
    const track = liveActivation(state, id);
    if (track === undefined || track.state === 'done' || track.state === 'cancelled') {
      throw new InvalidArgumentError(
        `cannot modify instance ${ctx.id} of process ${ctx.process.id}: it has no active element instance "${id}" to terminate`,
      );
    }
    return track;
  });
  // One after the other, as Zeebe takes them: a container one activation created, the next one reuses. A refusal
  // part-way changes nothing either: the loop goes back to the instance's checkpoint.
  const activated = event.activate.map((instruction) => activate(ctx, plan(ctx, instruction)));
  for (const track of terminated) {
    // An earlier instruction may have terminated it with its scope, as Zeebe skips such an instruction.
    if (track.state === 'done' || track.state === 'cancelled') continue;
    const path = track.scopePath;
    cancel(ctx, track);
    terminateEmptied(ctx, path);
  }
  announce(ctx, {
    id: eventId(ctx.id, 'instance.modified', state.nextId('t')),
    type: 'instance.modified',
    activated,
    terminated: terminated.map((track) => ({ elementId: track.nodeId, elementInstanceId: elementInstanceId(track) })),
  });
}

/** What an activation does: the scope chain from an existing scope down to the element's flow scope. */
interface Plan {
  node: Node;
  /** The deepest existing scope on the way. */
  from: string;
  /** The containers to create under it, outermost first. */
  create: Node[];
  variables: ActivateInstruction['variables'];
}

function plan(ctx: StepContext, instruction: ActivateInstruction): Plan {
  const refuse = (why: string): never => {
    throw new InvalidArgumentError(
      `cannot modify instance ${ctx.id} of process ${ctx.process.id}: cannot activate "${instruction.elementId}": ${why}`,
    );
  };
  const node = ctx.process.nodes.get(instruction.elementId);
  if (node === undefined) {
    refuse(
      ctx.process.flows.has(instruction.elementId)
        ? 'it is a sequence flow; activate the element it leads to'
        : 'the process has no such element',
    );
  }
  const known = node!;
  const why = NOT_ACTIVATED[known.type];
  if (why !== undefined) refuse(why);
  if (known.incoming.some((flow) => nodeAt(ctx, ctx.process.flows.get(flow)?.source)?.type === 'eventBasedGateway')) {
    refuse('an event after an event-based gateway happens when the gateway chooses it; activate the gateway');
  }
  if (known.forCompensation) refuse('a compensation handler runs only when its activity is compensated');
  // The containers, outermost first; the process itself is the root scope.
  const containers: Node[] = [];
  for (let at = nodeAt(ctx, known.container); at !== undefined; at = nodeAt(ctx, at.container)) containers.unshift(at);
  const scopeIds = new Set([known.id, ...containers.map((c) => c.id)]);
  for (const { scopeId } of instruction.variables) {
    if (scopeId === '' || scopeId === ctx.process.id || scopeIds.has(scopeId)) continue;
    refuse(
      ctx.process.nodes.has(scopeId)
        ? `variables for "${scopeId}", which is neither the element nor one of its containers; set them before or after the modification`
        : `variables for "${scopeId}", which the process has no element of`,
    );
  }
  let from = '/';
  let level = 0;
  if (instruction.ancestor !== null && instruction.ancestor !== ctx.id) {
    const host = liveActivation(ctx.state, instruction.ancestor);
    const opened = host === undefined ? undefined : scopesHostedBy(ctx, host).find((s) => !isBodyScope(s));
    if (host === undefined || opened === undefined) {
      refuse(`its ancestor "${instruction.ancestor}" is not an active instance of a container in this instance`);
    }
    level = containers.findIndex((c) => c.id === host!.nodeId) + 1;
    if (level === 0) refuse(`"${instruction.ancestor}" (${host!.nodeId}) is not an instance of one of its containers`);
    from = opened!.path;
  }
  const create: Node[] = [];
  for (const container of containers.slice(level)) {
    if (create.length > 0) {
      create.push(container);
      continue;
    }
    const found = [...ctx.state.scopes.values()].filter((s) => isFlowScopeOf(ctx, s, container.id, from));
    if (found.length > 1) {
      refuse(
        `its container "${container.id}" has ${found.length} active instances; say in which with an ancestor element instance`,
      );
    }
    if (found.length === 1) from = found[0]!.path;
    else create.push(container);
  }
  for (const container of create) {
    if (container.loop !== undefined) {
      refuse(`it would need a new instance of multi-instance "${container.id}", which modification does not create`);
    }
    if (container.type === 'subProcess' && container.adHoc) {
      refuse(`it would need a new instance of ad-hoc sub-process "${container.id}"; activate the ad-hoc sub-process`);
    }
  }
  return { node: known, from, create, variables: instruction.variables };
}

function nodeAt(ctx: StepContext, id: string | undefined): Node | undefined {
  return id === undefined ? undefined : ctx.process.nodes.get(id);
}

/** Whether `scope` is an open activation of `containerId` directly under the scope at `parent` (a body between). */
function isFlowScopeOf(ctx: StepContext, scope: ScopeRecord, containerId: string, parent: string): boolean {
  if (scope.nodeId !== containerId || scope.state !== 'active' || isBodyScope(scope)) return false;
  if (scope.parentPath === parent) return true;
  const between = scope.parentPath === null ? undefined : ctx.state.scopes.get(scope.parentPath);
  return isBodyScope(between) && between.parentPath === parent;
}

function scopesHostedBy(ctx: StepContext, host: TrackRecord): ScopeRecord[] {
  return [...ctx.state.scopes.values()].filter((s) => s.hostTrack === host.id && s.state === 'active');
}

/** Create the scopes a plan needs, then a track entering the element: it runs as the step drains. */
function activate(ctx: StepContext, planned: Plan): { elementId: string; elementInstanceId: string } {
  const { state } = ctx;
  const variablesFor = (id: string): Variables =>
    Object.assign({}, ...planned.variables.filter((v) => v.scopeId === id).map((v) => v.variables));
  Object.assign(state.scope('/').data, variablesFor(''), variablesFor(ctx.process.id));
  let path = planned.from;
  for (const container of planned.create) path = openContainer(ctx, path, container, variablesFor(container.id));
  // Variables for scopes that were there already: set in them, as Zeebe creates them before the element activates.
  for (const scope of state.chain(path)) {
    if (
      scope.parentPath !== null &&
      !isBodyScope(scope) &&
      !planned.create.includes(ctx.process.nodes.get(scope.nodeId)!)
    ) {
      Object.assign(scope.data, variablesFor(scope.nodeId));
    }
  }
  const track = spawn(ctx, path, planned.node.id, null);
  const own = variablesFor(planned.node.id);
  if (Object.keys(own).length > 0) track.locals = own;
  return { elementId: planned.node.id, elementInstanceId: elementInstanceId(track) };
}

/**
 * A container's activation made as Zeebe makes a missing flow scope: active at once, with the variables given
 * (no input mappings, no start event), its boundary events and event sub-processes waiting. Its path.
 */
function openContainer(ctx: StepContext, parent: string, container: Node, data: Variables): string {
  const { state } = ctx;
  if (container.type === 'subProcess' && container.triggeredByEvent) {
    const scope = state.scope(parent);
    const pass = scope.visits[container.id] ?? 0;
    scope.visits[container.id] = pass + 1;
    const path = scopePath(parent, container.id, { pass });
    state.scopes.set(path, newScope(path, container.id, parent, null, data));
    armOrRefuse(ctx, armEventSubProcesses(ctx, path, null), container);
    return path;
  }
  const host = newTrack(state.nextId('t'), parent);
  place(ctx, host, container.id, null);
  state.tracks.set(host.id, host);
  announce(ctx, {
    id: trackEventId(ctx.id, host, 'entered'),
    type: 'track.entered',
    trackId: host.id,
    elementId: container.id,
    elementInstanceId: elementInstanceId(host),
  });
  armOrRefuse(ctx, !ctx.process.boundaries?.has(container.id) || armBoundaries(ctx, host), container);
  const path = scopePath(parent, container.id, { pass: host.attempt });
  state.scopes.set(path, newScope(path, container.id, parent, host.id, data));
  armOrRefuse(ctx, armEventSubProcesses(ctx, path, host), container);
  host.wait = { kind: 'scope', path };
  move(ctx, host, 'WAIT');
  return path;
}

/** A wait that could not be armed raised an incident on the step's own records: refused, as Zeebe refuses it. */
function armOrRefuse(ctx: StepContext, armed: boolean, container: Node): void {
  if (armed) return;
  throw new InvalidArgumentError(
    `cannot modify instance ${ctx.id} of process ${ctx.process.id}: the events of "${container.id}" could not be subscribed to`,
  );
}

/**
 * A flow scope a termination left with nothing in it is terminated, and so on outwards, as Zeebe terminates
 * them; the root so emptied terminates the instance — refused for a called instance, whose parent decides.
 */
function terminateEmptied(ctx: StepContext, path: string): void {
  const { state } = ctx;
  for (let at: string | null = path; at !== null; ) {
    const scope = state.scopes.get(at);
    if (scope === undefined || scope.state !== 'active') return;
    if (state.liveTracks(at).length > 0 || state.hasChildScope(at)) return;
    if (scope.parentPath === null) {
      if (state.instance.parentId !== null) {
        throw new InvalidArgumentError(
          `cannot modify instance ${ctx.id} of process ${ctx.process.id}: it would terminate the instance, which a call activity started; modify its parent instead`,
        );
      }
      return terminate(ctx, '/', '');
    }
    if (isBodyScope(scope)) {
      throw new InvalidArgumentError(
        `cannot modify instance ${ctx.id} of process ${ctx.process.id}: it would leave an instance of multi-instance "${scope.nodeId}" with nothing in it; terminate the multi-instance activity instead`,
      );
    }
    const host = scope.hostTrack === null ? undefined : state.tracks.get(scope.hostTrack);
    at = scope.parentPath;
    if (host !== undefined) cancel(ctx, host);
    else terminateScope(ctx, scope);
  }
}
