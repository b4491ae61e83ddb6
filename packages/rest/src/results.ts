/**
 * Camunda's result items built from what the engine shows: a process instance, a user task, an incident. The
 * operations by key answer them read from the instance; the search projection keeps them as its rows' bodies.
 */
import type { IncidentRecord, InstanceView, UserTaskView } from '@thresher/engine';
import type { ProcessDefinition } from './catalog.js';
import { elementInstanceKey, externalKey, instanceKey, localKey } from './keys.js';
import { DEFAULT_TENANT } from './tenants.js';

const INSTANCE_STATES = { running: 'ACTIVE', completed: 'COMPLETED', terminated: 'TERMINATED' } as const;

/** `ProcessInstanceResult`. */
export function processInstanceResult(
  view: InstanceView,
  definition: ProcessDefinition,
  key: string,
  parentKey: string | null,
): Record<string, unknown> {
  return {
    processDefinitionId: definition.processDefinitionId,
    processDefinitionName: definition.name ?? definition.processDefinitionId,
    processDefinitionVersion: definition.processDefinitionVersion,
    ...(definition.versionTag === null ? {} : { processDefinitionVersionTag: definition.versionTag }),
    startDate: new Date(view.startedAt).toISOString(),
    ...(view.endedAt === null ? {} : { endDate: new Date(view.endedAt).toISOString() }),
    state: INSTANCE_STATES[view.status],
    hasIncident: view.incidents.length > 0,
    tenantId: DEFAULT_TENANT,
    processInstanceKey: key,
    processDefinitionKey: definition.processDefinitionKey,
    ...(parentKey === null ? {} : { parentProcessInstanceKey: parentKey }),
  };
}

const TASK_STATES: Record<UserTaskView['state'], string> = {
  created: 'CREATED',
  creating: 'CREATING',
  assigning: 'ASSIGNING',
  updating: 'UPDATING',
  completing: 'COMPLETING',
  canceling: 'CANCELING',
};

/** `UserTaskResult` of an open task. */
export function userTaskResult(
  task: UserTaskView,
  view: InstanceView,
  definition: ProcessDefinition | undefined,
  serial: number,
): Record<string, unknown> {
  return {
    userTaskKey: externalKey(serial, task.id),
    name: task.name ?? task.elementId,
    state: TASK_STATES[task.state],
    ...(task.assignee === null ? {} : { assignee: task.assignee }),
    elementId: task.elementId,
    elementInstanceKey: elementInstanceKey(serial, task.elementInstanceId),
    candidateGroups: task.candidateGroups,
    candidateUsers: task.candidateUsers,
    processDefinitionId: view.processId,
    processName: definition?.name ?? view.processId,
    processDefinitionVersion: definition?.processDefinitionVersion,
    processDefinitionKey: definition?.processDefinitionKey,
    processInstanceKey: instanceKey(serial),
    creationDate: new Date(task.createdAt).toISOString(),
    ...(task.dueDate === null ? {} : { dueDate: task.dueDate }),
    ...(task.followUpDate === null ? {} : { followUpDate: task.followUpDate }),
    tenantId: DEFAULT_TENANT,
    customHeaders: task.headers,
    priority: task.priority,
  };
}

/** The key of the element activation a live track is in, as `elementInstanceKey`; nothing when the track is gone. */
function keyOfTrack(view: InstanceView, serial: number, trackId: string): { elementInstanceKey?: string } {
  const activation = view.elementInstances.find((candidate) => candidate.trackId === trackId);
  return activation === undefined ? {} : { elementInstanceKey: elementInstanceKey(serial, activation.id) };
}

/** Zeebe's error type of each kind of Thresher incident. */
const ERROR_TYPES: Record<IncidentRecord['kind'], string> = {
  'job-failed': 'JOB_NO_RETRIES',
  'no-flow-taken': 'CONDITION_ERROR',
  'expression-failed': 'EXTRACT_VALUE_ERROR',
  'mapping-failed': 'IO_MAPPING_ERROR',
  'uncaught-error': 'UNHANDLED_ERROR_EVENT',
  'call-failed': 'CALLED_ELEMENT_ERROR',
  'step-limit': 'UNKNOWN',
  'decision-failed': 'DECISION_EVALUATION_ERROR',
};

/** `IncidentResult` of an open incident. */
export function incidentResult(
  incident: IncidentRecord,
  view: InstanceView,
  definition: ProcessDefinition | undefined,
  serial: number,
): Record<string, unknown> {
  return {
    incidentKey: externalKey(serial, incident.id),
    processDefinitionId: view.processId,
    processDefinitionKey: definition?.processDefinitionKey,
    processInstanceKey: instanceKey(serial),
    errorType: ERROR_TYPES[incident.kind],
    errorMessage: incident.message,
    elementId: incident.nodeId,
    ...keyOfTrack(view, serial, incident.trackId),
    ...(incident.jobId === null ? {} : { jobKey: localKey(serial, incident.jobId) }),
    creationTime: new Date(incident.raisedAt).toISOString(),
    state: 'ACTIVE',
    tenantId: DEFAULT_TENANT,
  };
}
