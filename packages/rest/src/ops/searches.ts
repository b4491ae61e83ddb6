/**
 * The searches of runtime data, read from the search projection (as Camunda reads its secondary storage): process
 * instances, element instances, user tasks, incidents, variables, decision instances, message subscriptions and jobs, and
 * an element instance, a variable or a decision instance by key. The projection is behind the write by one read of
 * the event log (docs/camunda-api.md says how far).
 */
import type { RowCondition, SearchRow } from '@thresher/checkpoint';
import { readKey } from '../keys.js';
import type { Call, Operation } from '../operation.js';
import { notFound, Problem, ProblemKind } from '../problem.js';
import { DETAIL } from '../projection/decision-rows.js';
import { ORDER } from '../projection/element-rows.js';
import { bodyOf, KINDS } from '../projection/instance-rows.js';
import { fieldConditions, type RowSearchable, searchRows } from '../projection/row-search.js';
import type { SearchProjection } from '../projection/search-projection.js';

/** The projection the server keeps, or a 501 naming what is missing. */
export function projectionOf(call: Call): SearchProjection {
  if (call.projection === undefined) {
    throw new Problem(
      ProblemKind.NotImplemented,
      'searching runtime data needs a search projection: create the handler with options.projection (thresher serve keeps one)',
    );
  }
  return call.projection;
}

const key = { kind: 'key' } as const;
const text = { kind: 'string' } as const;
const date = { kind: 'date' } as const;
const enumerated = { kind: 'enum' } as const;

/** `variables: [{ name, value }]`: rows having, for each entry, a variable of that name and value. */
function variablesFilter(condition: unknown, where: string): RowCondition[] {
  if (!Array.isArray(condition)) throw new Problem(ProblemKind.InvalidArgument, `${where}: must be a list`);
  return condition.map((entry, index): RowCondition => {
    const at = `${where}[${index}]`;
    const { name, value, ...rest } = (entry ?? {}) as { name?: unknown; value?: unknown };
    if (typeof name !== 'string' || value === undefined || Object.keys(rest).length > 0) {
      throw new Problem(ProblemKind.InvalidArgument, `${at}: must be { name, value } (the value as JSON text)`);
    }
    return {
      op: 'related',
      kind: KINDS.variable,
      link: 'processInstanceKey',
      where: [
        { op: 'eq', field: 'name', type: 'text', value: name },
        ...fieldConditions('value', 'string', value, `${at}.value`),
      ],
    };
  });
}

/** A text filter on a list field kept as JSON text: the list holds the value. */
function listHolds(row: string) {
  return (condition: unknown, where: string): RowCondition[] => {
    if (typeof condition !== 'string') throw new Problem(ProblemKind.InvalidArgument, `${where}: must be a string`);
    const escaped = JSON.stringify(condition).replace(/[\\*?]/g, (char) => `\\${char}`);
    return [{ op: 'like', field: row, pattern: `*${escaped}*` }];
  };
}

/** The process instance rows and what a search of them (and a batch operation's filter) filters by. */
export const PROCESS_INSTANCES: RowSearchable = {
  kind: KINDS.processInstance,
  fields: {
    processInstanceKey: key,
    processDefinitionId: text,
    processDefinitionName: text,
    processDefinitionVersion: { kind: 'integer' },
    processDefinitionVersionTag: text,
    processDefinitionKey: key,
    parentProcessInstanceKey: key,
    parentElementInstanceKey: key,
    startDate: date,
    endDate: date,
    state: enumerated,
    hasIncident: { kind: 'boolean' },
    tenantId: text,
  },
  custom: { variables: variablesFilter },
};

/** The user task rows and what a search of them filters and sorts by. */
export const USER_TASKS: RowSearchable = {
  kind: KINDS.userTask,
  fields: {
    userTaskKey: key,
    state: enumerated,
    assignee: text,
    priority: { kind: 'integer' },
    elementId: text,
    name: text,
    processDefinitionId: text,
    processDefinitionKey: key,
    processInstanceKey: key,
    elementInstanceKey: key,
    tenantId: text,
    creationDate: date,
    completionDate: date,
    followUpDate: date,
    dueDate: date,
  },
  custom: { candidateGroup: listHolds('candidateGroups'), candidateUser: listHolds('candidateUsers') },
};

/** The incident rows and what a search of them filters and sorts by. */
export const INCIDENTS: RowSearchable = {
  kind: KINDS.incident,
  fields: {
    incidentKey: key,
    processDefinitionId: text,
    processDefinitionKey: key,
    processInstanceKey: key,
    errorType: enumerated,
    errorMessage: text,
    elementId: text,
    elementInstanceKey: key,
    jobKey: key,
    creationTime: date,
    state: enumerated,
    tenantId: text,
  },
};

const VARIABLES: RowSearchable = {
  kind: KINDS.variable,
  fields: {
    variableKey: key,
    name: text,
    value: text,
    processInstanceKey: key,
    scopeKey: key,
    tenantId: text,
    isTruncated: { kind: 'boolean' },
  },
};

const ELEMENT_INSTANCES: RowSearchable = {
  kind: KINDS.elementInstance,
  fields: {
    elementInstanceKey: key,
    elementId: text,
    elementName: text,
    type: enumerated,
    state: enumerated,
    startDate: date,
    endDate: date,
    hasIncident: { kind: 'boolean' },
    incidentKey: key,
    processInstanceKey: key,
    processDefinitionId: text,
    processDefinitionKey: key,
    tenantId: text,
  },
  // Keys are hashed: activations order by when they began, as Zeebe's sequential keys order them.
  tieBreak: [
    { field: 'startDate', type: 'text' },
    { field: ORDER, type: 'number' },
  ],
};

const DECISION_INSTANCES: RowSearchable = {
  kind: KINDS.decisionInstance,
  fields: {
    decisionEvaluationInstanceKey: text,
    state: enumerated,
    evaluationFailure: text,
    evaluationDate: date,
    decisionDefinitionId: text,
    decisionDefinitionName: text,
    decisionDefinitionVersion: { kind: 'integer' },
    decisionDefinitionType: enumerated,
    tenantId: text,
    decisionEvaluationKey: key,
    processDefinitionKey: key,
    processInstanceKey: key,
    decisionDefinitionKey: key,
  },
};

const MESSAGE_SUBSCRIPTIONS: RowSearchable = {
  kind: KINDS.messageSubscription,
  fields: {
    messageSubscriptionKey: key,
    processDefinitionId: text,
    processDefinitionKey: key,
    processInstanceKey: key,
    elementId: text,
    elementInstanceKey: key,
    messageSubscriptionState: enumerated,
    lastUpdatedDate: date,
    messageName: text,
    correlationKey: text,
    tenantId: text,
  },
};

/** Each message an element took (a message start event's is not kept: differs). */
const CORRELATED_SUBSCRIPTIONS: RowSearchable = {
  kind: KINDS.correlatedSubscription,
  fields: {
    correlationKey: text,
    correlationTime: date,
    elementId: text,
    elementInstanceKey: key,
    messageKey: key,
    messageName: text,
    partitionId: { kind: 'integer' },
    processDefinitionId: text,
    processDefinitionKey: key,
    processInstanceKey: key,
    subscriptionKey: key,
    tenantId: text,
  },
};

/** Jobs, as the log tells them: `worker`, `deadline` and a denial are not kept (always empty or absent). */
const JOBS: RowSearchable = {
  kind: KINDS.job,
  fields: {
    jobKey: key,
    type: text,
    worker: text,
    state: enumerated,
    kind: enumerated,
    listenerEventType: enumerated,
    retries: { kind: 'integer' },
    hasFailedWithRetriesLeft: { kind: 'boolean', sortable: false },
    isDenied: { kind: 'boolean' },
    deniedReason: text,
    errorCode: text,
    errorMessage: text,
    deadline: date,
    endTime: date,
    elementId: text,
    elementInstanceKey: key,
    processDefinitionId: text,
    processDefinitionKey: key,
    processInstanceKey: key,
    tenantId: text,
  },
};

function searchOf(spec: RowSearchable, what: string): Operation {
  return async (call) => {
    const found = await searchRows(projectionOf(call).repository, await call.json(), spec, what);
    return { status: 200, body: found };
  };
}

/** A search whose filter also holds `extra` (what the path names). */
function searchWithin(spec: RowSearchable, what: string, extra: (call: Call) => Promise<Record<string, unknown>>) {
  return async (call: Call) => {
    const body = ((await call.json()) ?? {}) as { filter?: unknown };
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new Problem(ProblemKind.InvalidArgument, `${what}: the body must be a JSON object`);
    }
    const filter = { ...((body.filter ?? {}) as object), ...(await extra(call)) };
    const found = await searchRows(projectionOf(call).repository, { ...body, filter }, spec, what);
    return { status: 200 as const, body: found };
  };
}

/** The kept row of a kind by key, or a 404 naming it (a 501 without a projection, unless `orNotFound`). */
export async function keptRow(call: Call, kind: string, rowKey: string, what: string, orNotFound = false) {
  if (orNotFound && call.projection === undefined) throw notFound(what, rowKey);
  const row = await rowOfKey(call, kind, rowKey);
  if (row === undefined) throw notFound(what, rowKey);
  return bodyOf(row);
}

/** The row of a kind the projection keeps under a key, as stored (its fields beside the body too). */
export async function rowOfKey(call: Call, kind: string, rowKey: string): Promise<SearchRow | undefined> {
  return (await projectionOf(call).repository.searchRows({ kind, keys: [rowKey], limit: 1 })).rows[0];
}

/** `GET /variables/{variableKey}`. */
const getVariable: Operation = async (call) => {
  const variableKey = call.params.variableKey!;
  readKey(variableKey, 'path parameter variableKey');
  return { status: 200, body: await keptRow(call, KINDS.variable, variableKey, 'variable') };
};

/** `GET /element-instances/{elementInstanceKey}`. */
const getElementInstance: Operation = async (call) => {
  const elementKey = call.params.elementInstanceKey!;
  readKey(elementKey, 'path parameter elementInstanceKey');
  return { status: 200, body: await keptRow(call, KINDS.elementInstance, elementKey, 'element instance') };
};

/** `GET /decision-instances/{decisionEvaluationInstanceKey}`: with its inputs and matched rules. */
const getDecisionInstance: Operation = async (call) => {
  const instanceKey = call.params.decisionEvaluationInstanceKey!;
  const detail = (await rowOfKey(call, KINDS.decisionInstance, instanceKey))?.fields[DETAIL];
  if (typeof detail !== 'string') throw notFound('decision instance', instanceKey);
  return { status: 200, body: JSON.parse(detail) };
};

/** The variables a user task sees: those of its process instance, as the projection keeps them. */
const searchUserTaskVariables = searchWithin(VARIABLES, 'the user task variable search', async (call) => {
  const taskKey = call.params.userTaskKey!;
  readKey(taskKey, 'path parameter userTaskKey');
  const task = await keptRow(call, KINDS.userTask, taskKey, 'user task');
  return { processInstanceKey: task.processInstanceKey };
});

const searchProcessInstanceIncidents = searchWithin(INCIDENTS, 'the process instance incident search', async (call) => {
  const instance = call.params.processInstanceKey!;
  readKey(instance, 'path parameter processInstanceKey');
  await keptRow(call, KINDS.processInstance, instance, 'process instance');
  return { processInstanceKey: instance };
});

export const searchOperations = {
  searchProcessInstances: searchOf(PROCESS_INSTANCES, 'the process instance search'),
  searchUserTasks: searchOf(USER_TASKS, 'the user task search'),
  searchIncidents: searchOf(INCIDENTS, 'the incident search'),
  searchVariables: searchOf(VARIABLES, 'the variable search'),
  searchElementInstances: searchOf(ELEMENT_INSTANCES, 'the element instance search'),
  getElementInstance,
  searchDecisionInstances: searchOf(DECISION_INSTANCES, 'the decision instance search'),
  getDecisionInstance,
  searchMessageSubscriptions: searchOf(MESSAGE_SUBSCRIPTIONS, 'the message subscription search'),
  searchJobs: searchOf(JOBS, 'the job search'),
  searchCorrelatedMessageSubscriptions: searchOf(
    CORRELATED_SUBSCRIPTIONS,
    'the correlated message subscription search',
  ),
  getVariable,
  searchUserTaskVariables,
  searchProcessInstanceIncidents,
} satisfies Record<string, Operation>;
