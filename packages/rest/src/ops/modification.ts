/**
 * `POST /process-instances/{key}/modification`: `engine.modifyInstance`, its element instance keys read against the
 * instance's live activations (each key is its activation's id hashed with the instance's serial), not the search
 * projection, so an activation made a moment ago is found. `POST /process-instances/{key}/migration`:
 * `engine.migrateInstance` onto the process definition its key names.
 */
import type { InstanceView } from '@thresher/engine';
import { elementInstanceKey } from '../keys.js';
import type { Operation } from '../operation.js';
import { Problem, ProblemKind } from '../problem.js';
import { readMigration, readModification } from '../schemas/modification.js';

const modifyProcessInstance: Operation = async ({ engine, keys, params, json }) => {
  const key = params.processInstanceKey!;
  const body = readModification(await json());
  const view = await keys.viewOf(key, 'path parameter processInstanceKey');
  if (view.status !== 'running') {
    throw new Problem(ProblemKind.NotFound, `no running process instance with key ${key}: it has ${view.status}`);
  }
  const activation = await activationsByKey(keys.serialOf(view.id), view);
  const terminate = (body.terminateInstructions ?? []).map(({ elementInstanceKey: given }, n) => {
    const found = activation.get(given);
    if (found === undefined) {
      throw new Problem(
        ProblemKind.InvalidArgument,
        `$.terminateInstructions[${n}].elementInstanceKey: process instance ${key} has no active element instance ${given}`,
      );
    }
    return found;
  });
  const activate = (body.activateInstructions ?? []).map((instruction, n) => {
    const ancestor = instruction.ancestorElementInstanceKey;
    let ancestorElementInstanceId: string | undefined;
    if (ancestor === key) ancestorElementInstanceId = view.id;
    else if (ancestor !== undefined && ancestor !== '-1') {
      ancestorElementInstanceId = activation.get(ancestor);
      if (ancestorElementInstanceId === undefined) {
        throw new Problem(
          ProblemKind.InvalidArgument,
          `$.activateInstructions[${n}].ancestorElementInstanceKey: process instance ${key} has no active element instance ${ancestor}`,
        );
      }
    }
    return {
      elementId: instruction.elementId,
      ...(ancestorElementInstanceId === undefined ? {} : { ancestorElementInstanceId }),
      variables: (instruction.variableInstructions ?? []).map(({ variables, scopeId }) => ({
        variables,
        scopeId: scopeId ?? '',
      })),
    };
  });
  await engine.modifyInstance(view.id, { activate, terminate });
  return { status: 204 };
};

/** The instance's live activations by their element instance keys. */
async function activationsByKey(serial: Promise<number>, view: InstanceView): Promise<Map<string, string>> {
  const of = await serial;
  return new Map(view.elementInstances.map((one) => [elementInstanceKey(of, one.id), one.id]));
}

const migrateProcessInstance: Operation = async ({ engine, keys, catalog, params, json }) => {
  const key = params.processInstanceKey!;
  const body = readMigration(await json());
  const view = await keys.viewOf(key, 'path parameter processInstanceKey');
  if (view.status !== 'running') {
    throw new Problem(ProblemKind.NotFound, `no running process instance with key ${key}: it has ${view.status}`);
  }
  const target = await catalog.findKey(body.targetProcessDefinitionKey);
  if (target === undefined) {
    throw new Problem(
      ProblemKind.NotFound,
      `no process definition with key ${body.targetProcessDefinitionKey} to migrate process instance ${key} to`,
    );
  }
  await engine.migrateInstance(view.id, {
    processId: target.processDefinitionId,
    digest: target.digest,
    mapping: body.mappingInstructions,
  });
  return { status: 204 };
};

export const modificationOperations = { modifyProcessInstance, migrateProcessInstance } satisfies Record<
  string,
  Operation
>;
