/**
 * What callers ask of an instance's user tasks, ad-hoc sub-processes, incidents and variables, by their external ids
 * (`<instanceId>/<localId>`): each checked, then applied through the instance's loop.
 */
import { checkEncodable, type Variables } from '@thresher/checkpoint';
import { InvalidArgumentError, NotFoundError } from '../../common/errors.js';
import { elementInstanceId } from '../../core/step/event-ids.js';
import type { InstanceEvent } from '../../core/step/instance-event.js';
import { liveActivation } from '../../core/step/set-variables.js';
import type { InstanceState } from '../../core/step/state.js';
import type { UserTaskChanges } from '../base/types.js';
import { parseExternalId } from '../loop/views.js';
import type { EngineParts } from './engine-parts.js';

export async function completeUserTask(
  parts: EngineParts,
  taskId: string,
  variables: Variables,
  options: { action?: string },
): Promise<void> {
  checkEncodable(variables, '$variables');
  const event = { variables: { ...variables }, ...(options.action ? { action: options.action } : {}) };
  await taskCommand(parts, taskId, (localId) => ({ type: 'userTask.completed', taskId: localId, ...event }));
}

export async function assignUserTask(
  parts: EngineParts,
  taskId: string,
  assignee: string | null,
  options: { action?: string; allowOverride?: boolean },
): Promise<void> {
  if (assignee !== null && typeof assignee !== 'string') {
    throw new InvalidArgumentError(`an assignee must be a string or null, not ${JSON.stringify(assignee)}`);
  }
  const action = options.action ?? (assignee === null ? 'unassign' : 'assign');
  const allowOverride = options.allowOverride ?? true;
  await taskCommand(parts, taskId, (localId) => ({
    type: 'userTask.assign',
    taskId: localId,
    assignee,
    action,
    allowOverride,
  }));
}

export async function updateUserTask(
  parts: EngineParts,
  taskId: string,
  changes: UserTaskChanges,
  options: { action?: string },
): Promise<void> {
  checkEncodable(changes, '$changes');
  const action = options.action ?? 'update';
  await taskCommand(parts, taskId, (localId) => ({
    type: 'userTask.update',
    taskId: localId,
    changes: { ...changes },
    action,
  }));
}

export async function activateAdHocElements(
  parts: EngineParts,
  adHocId: string,
  elements: readonly (string | { elementId: string; variables?: Variables })[],
): Promise<void> {
  const { instanceId, localId } = parseLocalId('adHocSubProcess', adHocId);
  const given = elements.map((element) =>
    typeof element === 'string'
      ? { elementId: element, variables: {} }
      : { elementId: element.elementId, variables: { ...element.variables } },
  );
  checkEncodable(given, '$elements');
  const runtime = await parts.instances.runtime(instanceId);
  await runtime.submit({ type: 'adHoc.activate', hostId: localId, elements: given });
}

/** Where `setVariables` sets variables: from an element activation (default the root scope), or on it alone. */
export interface SetVariablesOptions {
  /** A live activation, as `instance(id).elementInstances` names it. */
  elementInstanceId?: string;
  local?: boolean;
  /**
   * An open scope, as `instance(id).scopes` names it (`/`, `/sub`): the variables are set there, as its own (what an
   * operator editing a scope's variables means). Not with `elementInstanceId` or `local`.
   */
  scope?: string;
}

export async function setVariables(
  parts: EngineParts,
  instanceId: string,
  variables: Variables,
  options: SetVariablesOptions,
): Promise<void> {
  checkEncodable(variables, '$variables');
  if (typeof variables !== 'object' || variables === null || Array.isArray(variables)) {
    throw new InvalidArgumentError(`variables must be an object of names to values, not ${JSON.stringify(variables)}`);
  }
  const runtime = await parts.instances.runtime(instanceId);
  const state = runtime.current;
  if (state.instance.status !== 'running') throw new NotFoundError('instance', instanceId);
  const { elementInstanceId: id = null, local = false } =
    options.scope === undefined ? options : scopeActivation(state, instanceId, options);
  if (id !== null && liveActivation(state, id) === undefined) {
    throw new NotFoundError('elementInstance', `${instanceId}/${id}`);
  }
  await runtime.submit({ type: 'variables.set', elementInstanceId: id, local, variables: { ...variables } });
}

/** The activation hosting a scope (none for the root's), its variables set as its own. */
function scopeActivation(
  state: InstanceState,
  instanceId: string,
  options: SetVariablesOptions,
): { elementInstanceId: string | null; local: true } {
  if (options.elementInstanceId !== undefined || options.local !== undefined) {
    throw new InvalidArgumentError('setVariables: give a scope, or an elementInstanceId (and local), not both');
  }
  const scope = state.scopes.get(options.scope!);
  if (scope === undefined) throw new NotFoundError('scope', `${instanceId}${options.scope}`);
  const host = scope.hostTrack === null ? undefined : state.tracks.get(scope.hostTrack);
  return { elementInstanceId: host === undefined ? null : elementInstanceId(host), local: true };
}

export async function retryIncident(parts: EngineParts, incidentId: string): Promise<void> {
  const { instanceId, localId } = parseLocalId('incident', incidentId);
  const runtime = await parts.instances.runtime(instanceId);
  if (!runtime.current.incidents.has(localId)) throw new NotFoundError('incident', incidentId);
  await runtime.submit({ type: 'incident.retry', incidentId: localId });
}

/** The instance and local id of an external id; `NotFoundError` of `kind` when it is none. */
export function parseLocalId(
  kind: 'userTask' | 'incident' | 'adHocSubProcess',
  id: string,
): { instanceId: string; localId: string } {
  const parsed = parseExternalId(id);
  if (!parsed) throw new NotFoundError(kind, id);
  return parsed;
}

async function taskCommand(
  parts: EngineParts,
  taskId: string,
  event: (localId: string) => InstanceEvent,
): Promise<void> {
  const { instanceId, localId } = parseLocalId('userTask', taskId);
  const runtime = await parts.instances.runtime(instanceId);
  if (!runtime.current.userTasks.has(localId)) throw new NotFoundError('userTask', taskId);
  await runtime.submit(event(localId));
}
