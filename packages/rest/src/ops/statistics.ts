/**
 * Counts read from the search projection: a process instance's element instances by element and state, and the
 * usage metrics of a time range (process instances started, decisions evaluated, people assigned tasks).
 */
import type { Repository, RowCondition, SearchRow } from '@thresher/checkpoint';
import { readKey } from '../keys.js';
import type { Operation } from '../operation.js';
import { Problem, ProblemKind } from '../problem.js';
import { bodyOf, KINDS } from '../projection/instance-rows.js';
import { allRows } from '../projection/kept-rows.js';
import { DEFAULT_TENANT } from '../tenants.js';
import { projectionOf } from './searches.js';

/** Every row of a kind passing `where`. */
async function rowsOf(repository: Repository, kind: string, where: RowCondition[]): Promise<SearchRow[]> {
  const rows: SearchRow[] = [];
  for await (const row of allRows(repository, { kind, where })) rows.push(row);
  return rows;
}

/** `GET /process-instances/{key}/statistics/element-instances`: per element, its activations by state. */
const getProcessInstanceStatistics: Operation = async (call) => {
  const key = call.params.processInstanceKey!;
  readKey(key, 'path parameter processInstanceKey');
  return { status: 200, body: await elementStatistics(call, 'processInstanceKey', key) };
};

/**
 * `POST /process-definitions/{key}/statistics/element-instances`: the same over every instance of the definition. A
 * `filter` on the instances is refused by name: Thresher does not narrow these counts yet.
 */
const getProcessDefinitionStatistics: Operation = async (call) => {
  const key = call.params.processDefinitionKey!;
  readKey(key, 'path parameter processDefinitionKey');
  const body = (await call.json()) ?? {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new Problem(ProblemKind.InvalidArgument, 'the process definition statistics: the body must be a JSON object');
  }
  for (const [name, value] of Object.entries(body)) {
    if (name !== 'filter')
      throw new Problem(ProblemKind.InvalidArgument, `$.${name}: not a field of this request (filter)`);
    if (value !== null && (typeof value !== 'object' || Array.isArray(value))) {
      throw new Problem(ProblemKind.InvalidArgument, '$.filter: must be an object');
    }
    const fields = value === null ? [] : Object.keys(value);
    if (fields.length > 0) {
      throw new Problem(
        ProblemKind.InvalidArgument,
        `$.filter.${fields[0]}: filtering these counts is not served by Thresher yet`,
      );
    }
  }
  return { status: 200, body: await elementStatistics(call, 'processDefinitionKey', key) };
};

/** Element instance rows whose `field` is `key`, counted per element by state. */
async function elementStatistics(call: Parameters<Operation>[0], field: string, key: string) {
  const rows = await rowsOf(projectionOf(call).repository, KINDS.elementInstance, [
    { op: 'eq', field, type: 'key', value: key },
  ]);
  const counts = new Map<
    string,
    { elementId: string; active: number; canceled: number; incidents: number; completed: number }
  >();
  for (const row of rows) {
    const { elementId, state, hasIncident } = bodyOf(row) as { elementId: string; state: string; hasIncident: boolean };
    const count = counts.get(elementId) ?? { elementId, active: 0, canceled: 0, incidents: 0, completed: 0 };
    counts.set(elementId, count);
    if (state === 'ACTIVE') count[hasIncident ? 'incidents' : 'active'] += 1;
    else if (state === 'TERMINATED') count.canceled += 1;
    else if (state === 'COMPLETED') count.completed += 1;
  }
  return { items: [...counts.values()].sort((a, b) => (a.elementId < b.elementId ? -1 : 1)) };
}

/** A required date-time query parameter, as `toISOString` writes it. */
function dateParameter(query: URLSearchParams, name: string): string {
  const given = query.get(name);
  if (given === null) throw new Problem(ProblemKind.InvalidArgument, `query parameter ${name}: required (a date-time)`);
  const time = Date.parse(given);
  if (Number.isNaN(time)) {
    throw new Problem(ProblemKind.InvalidArgument, `query parameter ${name}: "${given}" is not a date-time (RFC 3339)`);
  }
  return new Date(time).toISOString();
}

/** `GET /system/usage-metrics`: what was started, evaluated and assigned in `[startTime, endTime)`. */
const getUsageMetrics: Operation = async (call) => {
  const start = dateParameter(call.query, 'startTime');
  const end = dateParameter(call.query, 'endTime');
  const withTenants = call.query.get('withTenants');
  if (withTenants !== null && withTenants !== 'true' && withTenants !== 'false') {
    throw new Problem(
      ProblemKind.InvalidArgument,
      `query parameter withTenants: "${withTenants}" is not true or false`,
    );
  }
  const tenant = call.query.get('tenantId');
  if (tenant !== null && tenant !== DEFAULT_TENANT) {
    throw new Problem(
      ProblemKind.InvalidArgument,
      `query parameter tenantId: Thresher has one tenant, "${DEFAULT_TENANT}"`,
    );
  }
  const { repository } = projectionOf(call);
  const within = (field: string): RowCondition[] => [
    { op: 'gte', field, type: 'text', value: start },
    { op: 'lt', field, type: 'text', value: end },
  ];
  const count = async (kind: string, field: string) =>
    (await repository.searchRows({ kind, where: within(field), limit: 1 })).total;
  const processInstances = await count(KINDS.processInstance, 'startDate');
  const decisionInstances = await count(KINDS.decisionInstance, 'evaluationDate');
  const assigned = await rowsOf(repository, KINDS.userTask, [
    ...within('creationDate'),
    { op: 'exists', field: 'assignee', value: true },
  ]);
  const assignees = new Set(assigned.map((row) => row.fields.assignee)).size;
  const usage = { processInstances, decisionInstances, assignees };
  const active = processInstances + decisionInstances + assignees > 0 ? 1 : 0;
  return {
    status: 200,
    body: {
      ...usage,
      activeTenants: active,
      tenants: withTenants === 'true' && active ? { [DEFAULT_TENANT]: usage } : {},
    },
  };
};

export const statisticsOperations = {
  getProcessInstanceStatistics,
  getProcessDefinitionStatistics,
  getUsageMetrics,
} satisfies Record<string, Operation>;
