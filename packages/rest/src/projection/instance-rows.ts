/**
 * The search rows of one instance as it stands (its process instance, open user tasks and incidents, the variables
 * of its open scopes), and the rows a closing event turns a kept row into (a completed task, a resolved incident):
 * each row holds Camunda's result item as its `body`, and that item's scalar fields to filter and sort by.
 */
import type { RowValue, SearchRow } from '@thresher/checkpoint';
import type { InstanceView } from '@thresher/engine';
import type { ProcessDefinition } from '../catalog.js';
import { instanceKey, variableKey as keyOfVariable, namedKey } from '../keys.js';
import { incidentResult, processInstanceResult, userTaskResult } from '../results.js';
import { DEFAULT_TENANT } from '../tenants.js';
import { BODY } from './row-search.js';

export const KINDS = {
  processInstance: 'processInstance',
  userTask: 'userTask',
  incident: 'incident',
  variable: 'variable',
  elementInstance: 'elementInstance',
  decisionInstance: 'decisionInstance',
  messageSubscription: 'messageSubscription',
  job: 'job',
  correlatedSubscription: 'correlatedSubscription',
} as const;

/** A row holding `body`, its scalar fields (arrays and objects as JSON text) beside it. */
export function rowOf(kind: string, key: string, body: Record<string, unknown>): SearchRow {
  const fields: Record<string, RowValue> = { [BODY]: JSON.stringify(body) };
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined) continue;
    fields[name] =
      value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
        ? value
        : JSON.stringify(value);
  }
  return { kind, key, fields };
}

/** The body a row holds. */
export function bodyOf(row: SearchRow): Record<string, unknown> {
  return JSON.parse(String(row.fields[BODY])) as Record<string, unknown>;
}

/** The key a scope of an instance has: the instance's own for its root scope. */
export function scopeKeyOf(serial: number, scope: string): string {
  return scope === '/' ? instanceKey(serial) : namedKey(serial, 'scope', scope);
}

export interface InstanceRowsInput {
  view: InstanceView;
  serial: number;
  parentKey: string | null;
  definition: ProcessDefinition | undefined;
}

/** Every row the instance as it stands gives. */
export function instanceRows({ view, serial, parentKey, definition }: InstanceRowsInput): SearchRow[] {
  const key = instanceKey(serial);
  const rows: SearchRow[] = [];
  if (definition !== undefined) {
    rows.push(rowOf(KINDS.processInstance, key, processInstanceResult(view, definition, key, parentKey)));
  }
  for (const task of view.userTasks) {
    const body = userTaskResult(task, view, definition, serial);
    if (typeof body.userTaskKey === 'string') rows.push(rowOf(KINDS.userTask, body.userTaskKey, body));
  }
  for (const incident of view.incidents) {
    const body = incidentResult(incident, view, definition, serial);
    if (typeof body.incidentKey === 'string') rows.push(rowOf(KINDS.incident, body.incidentKey, body));
  }
  for (const [scope, variables] of Object.entries(view.scopes)) {
    for (const [name, value] of Object.entries(variables)) {
      const variableKey = keyOfVariable(serial, scope, name);
      rows.push(
        rowOf(KINDS.variable, variableKey, {
          variableKey,
          name,
          value: JSON.stringify(value ?? null),
          isTruncated: false,
          tenantId: DEFAULT_TENANT,
          processInstanceKey: key,
          scopeKey: scopeKeyOf(serial, scope),
        }),
      );
    }
  }
  return rows;
}

/** A kept row with its body changed (its fields with it; fields kept beside the body stay). */
export function changed(row: SearchRow, change: Record<string, unknown>): SearchRow {
  const body = bodyOf(row);
  const made = rowOf(row.kind, row.key, { ...body, ...change });
  const beside = Object.entries(row.fields).filter(([name]) => name !== BODY && !Object.hasOwn(body, name));
  return { ...made, fields: { ...Object.fromEntries(beside), ...made.fields } };
}
