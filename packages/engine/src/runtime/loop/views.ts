import type { Deployment, IncidentRecord, UserTaskRecord, Variables } from '@thresher/checkpoint';
import type { LiveTouchpoint } from '../../common/touchpoint-types.js';
import type { UserTaskFieldsView } from '../../common/user-task-types.js';
import { elementInstanceId } from '../../core/step/event-ids.js';
import type { InstanceState } from '../../core/step/state.js';
import { DEFAULT_PRIORITY } from '../../core/user-tasks/user-task-fields.js';
import type { ProcessDef } from '../../model/process-types.js';
import { NodeType } from '../../model/types.js';
import type { AdHocView, CallView, InstanceView, LoopingView, OpenJobView, UserTaskView } from '../base/types.js';
import type { InstancePast } from '../document/instance-log.js';
import { ownHeaders } from './job-headers.js';

/** The external id of an instance-local record (user task, incident): `<instanceId>/<localId>`. */
export function externalId(instanceId: string, localId: string): string {
  return `${instanceId}/${localId}`;
}

/** Split an external id back into the instance and the local id; undefined when it has no `/`. */
export function parseExternalId(id: string): { instanceId: string; localId: string } | undefined {
  const cut = id.lastIndexOf('/');
  if (cut <= 0 || cut === id.length - 1) return undefined;
  return { instanceId: id.slice(0, cut), localId: id.slice(cut + 1) };
}

/** A user task's fields as callers see them: a cleared one null (a list, empty), a priority never given 50. */
export function fieldsView(task: UserTaskRecord): UserTaskFieldsView {
  return {
    assignee: task.assignee,
    candidateGroups: [...(task.candidateGroups ?? [])],
    candidateUsers: [...(task.candidateUsers ?? [])],
    dueDate: task.dueDate ?? null,
    followUpDate: task.followUpDate ?? null,
    priority: task.priority ?? DEFAULT_PRIORITY,
  };
}

export function userTaskView(
  state: InstanceState,
  process: ProcessDef | undefined,
  task: UserTaskRecord,
): UserTaskView {
  const track = state.track(task.trackId);
  const node = process?.nodes.get(task.nodeId);
  return {
    id: externalId(state.instance.id, task.id),
    instanceId: state.instance.id,
    elementId: task.nodeId,
    elementInstanceId: elementInstanceId(track),
    name: task.name,
    ...fieldsView(task),
    variables: { ...state.visible(track.scopePath), ...track.locals },
    createdAt: task.createdAt,
    headers: { ...(node?.type === NodeType.UserTask ? node.headers : undefined) },
    state: task.transition?.event ?? 'created',
    revision: task.transitions ?? 0,
    denied: task.denied ? { ...task.denied } : null,
  };
}

/** The running ad-hoc sub-processes: their scopes, with the activations inside each. */
export function adHocViews(state: InstanceState, process: ProcessDef | undefined): AdHocView[] {
  const views: AdHocView[] = [];
  for (const scope of state.scopes.values()) {
    if (!scope.adHoc || scope.hostTrack === null) continue;
    const node = process?.nodes.get(scope.nodeId);
    const activatable = node?.type === NodeType.SubProcess ? (node.adHoc?.activatable ?? []) : [];
    const active: string[] = [];
    for (const inner of state.scopes.values()) {
      if (inner.parentPath === scope.path && inner.activation !== undefined) active.push(inner.activation);
    }
    views.push({
      id: externalId(state.instance.id, scope.hostTrack),
      elementId: scope.nodeId,
      activatable: activatable.map((elementId) => ({
        elementId,
        elementName: process?.nodes.get(elementId)?.name ?? null,
      })),
      active,
      activations: scope.adHoc.activations,
      done: scope.adHoc.done === true,
    });
  }
  return views;
}

function incidentView(instanceId: string, incident: IncidentRecord): IncidentRecord {
  return { ...incident, id: externalId(instanceId, incident.id) };
}

export function incidentViews(state: InstanceState): IncidentRecord[] {
  return [...state.incidents.values()].map((incident) => incidentView(state.instance.id, incident));
}

export function instanceView(
  state: InstanceState,
  process: ProcessDef | undefined,
  seq: number,
  deployment: Deployment | undefined,
  touchpoints: LiveTouchpoint[] | null,
  past: InstancePast,
  loopWarning: number,
): InstanceView {
  const { instance } = state;
  const scopes: Record<string, Variables> = {};
  for (const scope of state.scopes.values()) scopes[scope.path] = { ...scope.data };
  return {
    id: instance.id,
    processId: instance.processId,
    definitionId: instance.definition.id,
    version: deployment?.version ?? instance.definition.version,
    digest: instance.definition.digest,
    status: instance.status,
    businessKey: instance.businessKey,
    parentId: instance.parentId,
    callNodeId: instance.callNodeId,
    calls: callViews(state),
    variables: { ...state.scopes.get('/')?.data },
    scopes,
    activeElements: [...state.tracks.values()].map((track) => track.nodeId),
    elementInstances: [...state.tracks.values()].map((track) => ({
      id: elementInstanceId(track),
      elementId: track.nodeId,
      trackId: track.id,
    })),
    incidents: incidentViews(state),
    userTasks: [...state.userTasks.values()].map((task) => userTaskView(state, process, task)),
    jobs: openJobViews(state, process),
    adHocSubProcesses: adHocViews(state, process),
    subscriptions: [...state.subscriptions.values()].map(({ id, nodeId, kind, name, correlationKey, owner }) => ({
      id,
      elementId: nodeId,
      kind,
      name,
      correlationKey,
      trackId: owner.kind === 'eventSubProcess' ? null : owner.trackId,
    })),
    received: [...instance.receivedIds],
    history: past.history,
    flows: past.flows,
    decisions: past.decisions.map(({ node, track: _track, ...evaluation }) => ({ elementId: node, ...evaluation })),
    startedAt: instance.startedAt,
    endedAt: instance.endedAt,
    seq,
    touchpoints,
    looping: loopingViews(state, loopWarning),
  };
}

/** Elements entered more than `threshold` times in one activation of an open scope, most turns first. */
export function loopingViews(state: InstanceState, threshold: number): LoopingView[] {
  const looping: LoopingView[] = [];
  for (const scope of state.scopes.values()) {
    for (const [elementId, turns] of Object.entries(scope.visits)) {
      if (turns > threshold) looping.push({ elementId, scope: scope.path, turns, threshold });
    }
  }
  return looping.sort((a, b) => b.turns - a.turns);
}

/** The call activities of an instance waiting on their children. */
export function callViews(state: InstanceState): CallView[] {
  const calls: CallView[] = [];
  for (const track of state.tracks.values()) {
    if (track.wait?.kind === 'call') calls.push({ elementId: track.nodeId, instanceId: track.wait.childId });
  }
  return calls;
}

/** The jobs an instance has open, as `InstanceView.jobs` shows them (a task listener's without Zeebe's headers). */
export function openJobViews(state: InstanceState, process: ProcessDef | undefined): OpenJobView[] {
  return [...state.jobs.values()].map((job) => {
    const event = job.listener?.eventType ?? job.taskListener?.eventType;
    return {
      id: externalId(state.instance.id, job.id),
      elementId: job.nodeId,
      elementInstanceId: elementInstanceId(state.track(job.trackId)),
      taskType: job.taskType,
      retries: job.retriesLeft,
      failures: job.failures,
      lastError: job.lastError,
      headers: process ? ownHeaders(process, job) : {},
      ...(event ? { listener: { kind: job.listener ? 'execution' : 'task', eventType: event } } : {}),
    };
  });
}
