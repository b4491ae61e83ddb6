/**
 * Process-instance migration, by the rules Camunda 8.8 documents: every active element mapped to an element of the
 * same type in the same (mapped) flow scope of the target process; jobs, user tasks, incidents, timers and
 * subscriptions kept under their ids (a job takes the target's type); a mapped boundary event keeps its wait, an
 * unmapped one's goes, and a boundary event the target adds is armed. A case outside these rules is refused, naming
 * the element and the rule, and nothing changes (the loop reverts a refused step).
 */
import type { DefinitionRef, TrackRecord, WaitOwner } from '@thresher/checkpoint';
import { InvalidArgumentError, NotFoundError } from '../common/errors.js';
import type { BoundaryEventNode, Node } from '../model/node-types.js';
import { isJobNode, type ProcessDef } from '../model/process-types.js';
import { arm, boundariesOf } from './events/waits.js';
import { isScopeTrack } from './jobs/listeners.js';
import { announce, type StepContext } from './step/context.js';
import { eventId } from './step/event-ids.js';
import type { InstanceEventOf } from './step/instance-event.js';

/** Waits a migrated track may be in: what Thresher can carry over to another model as it stands. */
const MIGRATED_WAITS = new Set(['job', 'userTask', 'scope', 'join', 'incident', 'event', 'loop', 'call']);

export function migrateInstance(ctx: StepContext, event: InstanceEventOf<'instance.migrate'>): void {
  const { state } = ctx;
  if (state.instance.status !== 'running') throw new NotFoundError('instance', ctx.id);
  if (state.alreadyReceived(event.operationId)) return;
  const source = ctx.process;
  const target = event.target;
  const refuse = (why: string): never => {
    throw new InvalidArgumentError(`cannot migrate instance ${ctx.id} of process ${source.id} to ${target.id}: ${why}`);
  };
  const mapping = new Map<string, string>();
  for (const { sourceElementId, targetElementId } of event.mapping) {
    if (mapping.has(sourceElementId)) refuse(`the mapping names source element "${sourceElementId}" twice`);
    if (!source.nodes.has(sourceElementId)) refuse(`the source process has no element "${sourceElementId}"`);
    if (!target.nodes.has(targetElementId)) refuse(`the target process has no element "${targetElementId}"`);
    mapping.set(sourceElementId, targetElementId);
  }
  if (state.instance.drain) refuse('it is in the middle of a run; try again once it waits');
  if (state.conditions.size > 0) refuse('it waits on conditional events, which migration does not carry over yet');
  for (const [containerId, ids] of [...(source.eventSubProcesses ?? []), ...(target.eventSubProcesses ?? [])]) {
    if (ids.length > 0 && (containerId === source.id || containerId === target.id || openContainer(ctx, containerId))) {
      refuse(`"${containerId}" has event sub-processes, which migration does not carry over yet`);
    }
  }
  const scopeId = (id: string) => (id === source.id ? target.id : mapping.get(id));
  for (const scope of state.scopes.values()) {
    if (scope.parentPath === null) continue;
    if (scope.ledger?.length)
      refuse(`"${scope.nodeId}" holds compensable activities, which migration does not carry yet`);
    if (scope.hostTrack === null) refuse(`event sub-process "${scope.nodeId}" is active`);
  }
  const live = [...state.tracks.values()].filter((t) => t.state !== 'done' && t.state !== 'cancelled');
  for (const track of live) {
    if (isScopeTrack(state, track)) refuse(`"${track.nodeId}" runs its execution listeners; try again once it waits`);
    const from = source.nodes.get(track.nodeId)!;
    const to = mapping.get(from.id);
    if (to === undefined) {
      refuse(`active element "${from.id}" has no mapping instruction; elements cannot be migrated without one`);
    }
    const into = target.nodes.get(to!)!;
    if (into.type !== from.type || eventKind(into) !== eventKind(from)) {
      refuse(
        `active element "${from.id}" (${describe(from)}) is mapped to "${into.id}" (${describe(into)}); elements must be mapped to elements of the same type`,
      );
    }
    if (scopeId(from.container) !== into.container) {
      refuse(
        `the flow scope of active element "${from.id}" would change from "${scopeId(from.container) ?? from.container}" to "${into.container}"; it cannot change in a migration yet`,
      );
    }
    if (track.wait === null || !MIGRATED_WAITS.has(track.wait.kind) || track.listening !== undefined || track.sweep) {
      refuse(
        `active element "${from.id}" is ${track.listening ? 'running its execution listeners' : 'not waiting in a way migration carries over'}; try again once it waits`,
      );
    }
    if (track.wait!.kind === 'scope' && into.id !== from.id) {
      refuse(`sub-process "${from.id}" would become "${into.id}"; a container keeps its id in a migration yet`);
    }
    if (track.wait!.kind === 'loop' && (into.loop?.kind !== from.loop?.kind || into.id !== from.id)) {
      refuse(`multi-instance "${from.id}" must map to the same multi-instance element "${from.id}"`);
    }
    if (track.wait!.kind === 'event' && messageOf(into) !== messageOf(from)) {
      refuse(
        `active element "${from.id}" waits for another message or signal than "${into.id}" does; they must wait for the same one`,
      );
    }
  }
  // Checked: now the instance moves onto the target, record by record.
  const moved = live.map((track) => ({ track, from: track.nodeId, to: mapping.get(track.nodeId)! }));
  for (const { track, to } of moved) track.nodeId = to;
  for (const scope of state.scopes.values()) {
    scope.nodeId = scope.parentPath === null ? target.id : (mapping.get(scope.nodeId) ?? scope.nodeId);
    scope.visits = Object.fromEntries(Object.entries(scope.visits).map(([id, n]) => [mapping.get(id) ?? id, n]));
  }
  for (const job of state.jobs.values()) {
    const was = source.nodes.get(job.nodeId);
    const node = target.nodes.get(mapping.get(job.nodeId) ?? job.nodeId);
    const moves = state.write('jobs').get(job.id)!;
    moves.nodeId = node?.id ?? job.nodeId;
    // The element's own job (not a listener's) takes the target's static type, as Zeebe updates a migrated job's.
    const own = isJobNode(was) && was.taskType === job.taskType;
    if (own && isJobNode(node) && !node.taskType.startsWith('=')) moves.taskType = node.taskType;
  }
  for (const incident of state.incidents.values()) {
    state.write('incidents').get(incident.id)!.nodeId = mapping.get(incident.nodeId) ?? incident.nodeId;
  }
  for (const task of state.userTasks.values()) task.nodeId = mapping.get(task.nodeId) ?? task.nodeId;
  moveWaits(ctx, mapping, target, refuse);
  ctx.process = target;
  for (const { track } of moved) armAddedBoundaries(ctx, track);
  const before = state.instance.definition;
  state.instance.processId = target.id;
  state.instance.definition = { ...event.definition } satisfies DefinitionRef;
  // The touchpoints were planned on the source model; their plan does not carry over.
  state.touchpoints = null;
  announce(ctx, {
    id: eventId(ctx.id, 'instance.migrated', event.definition.digest, state.nextId('t')),
    type: 'instance.migrated',
    from: { processId: source.id, digest: before.digest, version: before.version },
    to: { processId: target.id, digest: event.definition.digest, version: event.definition.version },
    mapped: moved.map(({ from, to }) => ({ sourceElementId: from, targetElementId: to })),
  });
}

/** Whether a container of the source model is open in the instance now. */
function openContainer(ctx: StepContext, containerId: string): boolean {
  for (const scope of ctx.state.scopes.values()) if (scope.nodeId === containerId) return true;
  return false;
}

function eventKind(node: Node): string | undefined {
  return 'event' in node ? node.event?.kind : undefined;
}

function messageOf(node: Node): string | undefined {
  const event = 'event' in node ? node.event : undefined;
  if (event?.kind === 'message' || event?.kind === 'signal') return `${event.kind}:${JSON.stringify(event.name)}`;
  return undefined;
}

function describe(node: Node): string {
  const kind = eventKind(node);
  return kind === undefined ? node.type : `${kind} ${node.type}`;
}

/**
 * Timers and subscriptions follow their owners: a catch's and a gateway's stay (a gateway's targets mapped), a
 * mapped boundary event's stays on the target boundary (attached to the mapped activity, of the same kind), an
 * unmapped one's goes.
 */
function moveWaits(
  ctx: StepContext,
  mapping: ReadonlyMap<string, string>,
  target: ProcessDef,
  refuse: (why: string) => never,
): void {
  const { state } = ctx;
  const gone = new Set<string>();
  const rewrite = (record: { id: string; nodeId: string; owner: WaitOwner }): void => {
    const owner = record.owner;
    if (owner.kind === 'boundary') {
      const to = mapping.get(owner.nodeId);
      if (to === undefined) return void gone.add(record.id);
      const boundary = target.nodes.get(to);
      const host = state.tracks.get(owner.trackId);
      if (boundary?.type !== 'boundaryEvent' || (host !== undefined && boundary.attachedTo !== host.nodeId)) {
        refuse(
          `boundary event "${owner.nodeId}" is mapped to "${to}", which is not a boundary event of the mapped activity`,
        );
      }
      const from = ctx.process.nodes.get(owner.nodeId) as BoundaryEventNode;
      if (boundary.event.kind !== from.event.kind) {
        refuse(
          `boundary event "${owner.nodeId}" (${from.event.kind}) is mapped to "${to}" (${boundary.event.kind}); they must be of the same kind`,
        );
      }
      record.owner = { ...owner, nodeId: to };
      record.nodeId = to;
      return;
    }
    if (owner.kind === 'gateway') record.owner = { ...owner, target: mapping.get(owner.target) ?? owner.target };
    record.nodeId = mapping.get(record.nodeId) ?? record.nodeId;
    if (!target.nodes.has(record.nodeId))
      refuse(`"${record.nodeId}" waits, and the target process has no such element`);
  };
  for (const timer of state.timers.values()) rewrite(state.write('timers').get(timer.id)!);
  for (const subscription of state.subscriptions.values()) rewrite(state.write('subscriptions').get(subscription.id)!);
  for (const id of gone) {
    if (!state.write('timers').delete(id)) state.write('subscriptions').delete(id);
  }
}

/** The target's boundary events on a migrated activity that no mapped boundary event became: armed now. */
function armAddedBoundaries(ctx: StepContext, track: TrackRecord): void {
  const { state } = ctx;
  const kept = new Set<string>();
  for (const wait of [...state.timers.values(), ...state.subscriptions.values()]) {
    if (wait.owner.kind === 'boundary' && wait.owner.trackId === track.id) kept.add(wait.owner.nodeId);
  }
  const view = { ...state.visible(track.scopePath), ...track.locals };
  for (const boundary of boundariesOf(ctx, track.nodeId)) {
    if (kept.has(boundary.id) || !['timer', 'message', 'signal'].includes(boundary.event.kind)) continue;
    if (
      !arm(ctx, { kind: 'boundary', trackId: track.id, nodeId: boundary.id }, boundary, boundary.event, view, track)
    ) {
      throw new InvalidArgumentError(
        `cannot migrate instance ${ctx.id}: boundary event "${boundary.id}" of "${track.nodeId}" could not be armed`,
      );
    }
  }
}
