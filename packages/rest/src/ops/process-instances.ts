import type { Catalog, ProcessDefinition } from '../catalog.js';
import { readKey } from '../keys.js';
import type { Operation } from '../operation.js';
import { notFound, Problem, ProblemKind } from '../problem.js';
import { processInstanceResult } from '../results.js';
import {
  type CreateProcessInstance,
  readCancellation,
  readCreateProcessInstance,
} from '../schemas/process-instances.js';
import { DEFAULT_TENANT, readTenant } from '../tenants.js';
import { DEFAULT_AWAIT_MS, listenForEnds } from './await-completion.js';

/**
 * `POST /process-instances`: start the definition a BPMN id and version (the latest by default) or a key names.
 * With `awaitCompletion` it answers once the instance completed (its variables, or those `fetchVariables` names),
 * a 504 when it did not within `requestTimeout` (it runs on), a 409 when it was terminated. What Thresher cannot
 * honour yet is refused by name, nothing started: start and runtime instructions, tags, an operation reference.
 */
const createProcessInstance: Operation = async ({ engine, catalog, keys, json }) => {
  const request = readCreateProcessInstance(await json());
  readTenant(request.tenantId, '$.tenantId');
  refuseUnserved(request);
  const definition = await definitionOf(catalog, request);
  const ends = request.awaitCompletion === true ? listenForEnds(engine) : undefined;
  let instanceId: string;
  try {
    instanceId = await engine.start(definition.processDefinitionId, {
      variables: request.variables ?? {},
      digest: definition.digest,
    });
  } catch (error) {
    ends?.stop();
    throw error;
  }
  const processInstanceKey = await keys.keyOf(instanceId);
  let variables = {};
  if (ends !== undefined) {
    const timeout = request.requestTimeout || DEFAULT_AWAIT_MS;
    if ((await ends.ended(instanceId, timeout)) === 'terminated') {
      throw new Problem(
        ProblemKind.InvalidState,
        `process instance ${processInstanceKey} was terminated before it completed`,
      );
    }
    variables = fetched((await engine.instance(instanceId))?.variables ?? {}, request.fetchVariables);
  }
  return {
    status: 200,
    body: {
      processDefinitionId: definition.processDefinitionId,
      processDefinitionVersion: definition.processDefinitionVersion,
      processDefinitionKey: definition.processDefinitionKey,
      processInstanceKey,
      tenantId: DEFAULT_TENANT,
      variables,
    },
  };
};

function fetched(variables: Record<string, unknown>, names: readonly string[] | undefined): Record<string, unknown> {
  if (!names || names.length === 0) return variables;
  return Object.fromEntries(
    names.filter((name) => Object.hasOwn(variables, name)).map((name) => [name, variables[name]]),
  );
}

function refuseUnserved(request: CreateProcessInstance): void {
  const unserved: [string, boolean][] = [
    ['startInstructions', (request.startInstructions?.length ?? 0) > 0],
    ['runtimeInstructions', (request.runtimeInstructions?.length ?? 0) > 0],
    ['tags', (request.tags?.length ?? 0) > 0],
    ['operationReference', request.operationReference !== undefined],
  ];
  for (const [field, given] of unserved) {
    if (given) throw new Problem(ProblemKind.InvalidArgument, `$.${field}: not served by Thresher yet`);
  }
}

/** The definition a creation names, or a 404 naming what named none. */
async function definitionOf(catalog: Catalog, request: CreateProcessInstance): Promise<ProcessDefinition> {
  if ('processDefinitionKey' in request) {
    const key = request.processDefinitionKey;
    readKey(key, '$.processDefinitionKey');
    const found = await catalog.findKey(key);
    if (found === undefined) throw notFound('process definition', key);
    return found;
  }
  // The latest version may have been deployed by another process sharing the store: look again.
  await catalog.refresh();
  const versions = catalog.versionsOf(request.processDefinitionId);
  const version = request.processDefinitionVersion ?? -1;
  const found = version === -1 ? versions.at(-1) : versions.find((v) => v.processDefinitionVersion === version);
  if (found === undefined) {
    const which = version === -1 ? 'any version' : `version ${version}`;
    throw new Problem(
      ProblemKind.NotFound,
      `no process definition with BPMN process id "${request.processDefinitionId}" and ${which} was deployed`,
    );
  }
  return found;
}

/** `GET /process-instances/{processInstanceKey}`: read from the store, so it is never behind. */
const getProcessInstance: Operation = async ({ catalog, keys, params }) => {
  const key = params.processInstanceKey!;
  const view = await keys.viewOf(key, 'path parameter processInstanceKey');
  const definition = await catalog.findInDeployment(view.digest, view.processId);
  if (definition === undefined)
    throw new Error(`instance ${view.id} runs ${view.processId}, which no deployment holds`);
  const parentKey = view.parentId === null ? null : await keys.keyOf(view.parentId);
  return { status: 200, body: processInstanceResult(view, definition, key, parentKey) };
};

/**
 * `POST /process-instances/{key}/cancellation`: the instance stops where it stands (its called children with it)
 * and ends terminated. One that has already ended is a 404, as Zeebe answers: it holds no such running instance.
 */
const cancelProcessInstance: Operation = async ({ engine, keys, params, json }) => {
  const key = params.processInstanceKey!;
  readCancellation(await json());
  const view = await keys.viewOf(key, 'path parameter processInstanceKey');
  if (view.status !== 'running') {
    throw new Problem(ProblemKind.NotFound, `no running process instance with key ${key}: it has ${view.status}`);
  }
  await engine.cancel(view.id);
  return { status: 204 };
};

export const processInstanceOperations = {
  createProcessInstance,
  getProcessInstance,
  cancelProcessInstance,
} satisfies Record<string, Operation>;
