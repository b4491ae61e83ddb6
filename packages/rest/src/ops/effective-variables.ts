/**
 * `POST /user-tasks/{key}/effective-variables/search`: each variable the task sees once, the innermost scope's value
 * winning (the task's own input mappings, then its sub-processes outwards, then the process instance's). An open
 * task is read from its instance, never behind; a closed one from the variables the search projection keeps of the
 * scopes it was in (its own input mappings are not kept once it closed: differs).
 */
import { elementInstanceKey, readKey, variableKey } from '../keys.js';
import type { Call, Operation } from '../operation.js';
import { notFound, unlessNotFound } from '../problem.js';
import { ACTIVATION } from '../projection/element-rows.js';
import { bodyOf, KINDS, scopeKeyOf } from '../projection/instance-rows.js';
import { type Searchable, search } from '../search.js';
import { DEFAULT_TENANT } from '../tenants.js';
import { keptRow, projectionOf, rowOfKey } from './searches.js';
import { taskOfKey } from './user-tasks.js';

type VariableItem = Record<string, unknown> & { variableKey: string; name: string };

const text = (name: string) => ({ kind: 'string' as const, value: (item: VariableItem) => item[name] as string });
const key = (name: string) => ({ kind: 'key' as const, value: (item: VariableItem) => item[name] as string });

const EFFECTIVE: Searchable<VariableItem> = {
  id: (item) => item.variableKey,
  idKind: 'key',
  fields: {
    name: text('name'),
    value: text('value'),
    tenantId: text('tenantId'),
    variableKey: key('variableKey'),
    scopeKey: key('scopeKey'),
    processInstanceKey: key('processInstanceKey'),
  },
};

/** The scope path of an activation (`<scope>:<element>:<attempt>`; BPMN ids hold no colon). */
function scopeOfActivation(elementInstanceId: string): string {
  return elementInstanceId.split(':').slice(0, -2).join(':');
}

/** A scope's path and those of the scopes around it, innermost first: `/a/b#2` → `/a/b#2`, `/a`, `/`. */
function scopeChain(path: string): string[] {
  const chain: string[] = [];
  for (let at = path; at !== '/' && at !== ''; at = at.slice(0, at.lastIndexOf('/'))) chain.push(at);
  chain.push('/');
  return chain;
}

/** An open task's effective variables: where each name is held, from the task's own locals outwards. */
async function ofOpenTask(call: Call): Promise<VariableItem[] | undefined> {
  const open = await unlessNotFound(taskOfKey(call));
  if (open === undefined) return undefined;
  const { task, serial } = open;
  const view = (await call.engine.instance(task.instanceId))!;
  const chain = scopeChain(scopeOfActivation(task.elementInstanceId));
  const processInstanceKey = scopeKeyOf(serial, '/');
  return Object.entries(task.variables).map(([name, value]) => {
    const json = JSON.stringify(value ?? null);
    const holder = chain.find(
      (scope) =>
        view.scopes[scope] &&
        Object.hasOwn(view.scopes[scope], name) &&
        JSON.stringify(view.scopes[scope][name] ?? null) === json,
    );
    const scope = holder ?? task.elementInstanceId;
    return {
      variableKey: variableKey(serial, scope, name),
      name,
      value: json,
      isTruncated: false,
      tenantId: DEFAULT_TENANT,
      processInstanceKey,
      scopeKey: holder === undefined ? elementInstanceKey(serial, task.elementInstanceId) : scopeKeyOf(serial, holder),
    };
  });
}

/** A closed task's effective variables, from the kept variables of the scopes it was in. */
async function ofClosedTask(call: Call, taskKey: string): Promise<VariableItem[]> {
  const task = await keptRow(call, KINDS.userTask, taskKey, 'user task');
  const instance = readKey(String(task.processInstanceKey), 'the task row');
  const activation = await rowOfKey(call, KINDS.elementInstance, String(task.elementInstanceKey));
  const elementInstanceId = activation?.fields[ACTIVATION];
  if (instance.kind !== 'instance' || typeof elementInstanceId !== 'string') throw notFound('user task', taskKey);
  const chain = scopeChain(scopeOfActivation(elementInstanceId)).map((scope) => scopeKeyOf(instance.serial, scope));
  const { rows } = await projectionOf(call).repository.searchRows({
    kind: KINDS.variable,
    where: [
      { op: 'eq', field: 'processInstanceKey', type: 'key', value: String(task.processInstanceKey) },
      { op: 'in', field: 'scopeKey', type: 'key', values: chain },
    ],
    limit: 10_000,
  });
  const innermost = new Map<string, VariableItem>();
  const depth = (item: VariableItem) => chain.indexOf(String(item.scopeKey));
  for (const item of rows.map((row) => bodyOf(row) as VariableItem)) {
    const kept = innermost.get(item.name);
    if (kept === undefined || depth(item) < depth(kept)) innermost.set(item.name, item);
  }
  return [...innermost.values()];
}

const searchUserTaskEffectiveVariables: Operation = async (call) => {
  const taskKey = call.params.userTaskKey!;
  readKey(taskKey, 'path parameter userTaskKey');
  const items = (await ofOpenTask(call)) ?? (await ofClosedTask(call, taskKey));
  const found = search(items, await call.json(), EFFECTIVE, 'the user task effective variable search');
  return { status: 200, body: found };
};

export const effectiveVariableOperations = { searchUserTaskEffectiveVariables } satisfies Record<string, Operation>;
