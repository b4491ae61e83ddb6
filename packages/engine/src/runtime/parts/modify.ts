/**
 * `engine.modifyInstance`: a caller's instructions checked for their shape, then applied in the instance's loop,
 * where the core decides every refusal against the instance as it is at that step (`core/scoping/modify.ts`).
 */
import { checkEncodable, type Variables } from '@thresher/checkpoint';
import { InvalidArgumentError } from '../../common/errors.js';
import type { ActivateInstruction } from '../../core/step/instance-event.js';
import type { EngineParts } from './engine-parts.js';

/** What `modifyInstance` does, as Camunda's modification command says it. */
export interface ModifyInstructions {
  /**
   * Elements to activate, each in its flow scope: the one active instance of it (created, with its containers, when
   * there is none), or the one under `ancestorElementInstanceId` (an active container's element instance, or the
   * instance's own id). `variables` go into the element's own scope, a container's (`scopeId`), or the root (no
   * `scopeId`, `''`, or the process id) before it is entered.
   */
  activate?: readonly {
    elementId: string;
    ancestorElementInstanceId?: string;
    variables?: readonly { scopeId?: string; variables: Variables }[];
  }[];
  /** Element instances to terminate (`instance(id).elementInstances`): with what runs inside them. */
  terminate?: readonly string[];
  /** The modification's own id: given again under it (a retry after a crash), it changes nothing. */
  operationId?: string;
}

export async function modifyInstance(
  parts: EngineParts,
  instanceId: string,
  instructions: ModifyInstructions,
): Promise<void> {
  const activate: ActivateInstruction[] = (instructions.activate ?? []).map((given, n) => {
    if (typeof given?.elementId !== 'string' || given.elementId === '') {
      throw new InvalidArgumentError(`modifyInstance: activate[${n}] names no elementId`);
    }
    const ancestor = given.ancestorElementInstanceId;
    if (ancestor !== undefined && typeof ancestor !== 'string') {
      throw new InvalidArgumentError(`modifyInstance: activate[${n}].ancestorElementInstanceId is not a string`);
    }
    const variables = (given.variables ?? []).map((one, k) => {
      const where = `activate[${n}].variables[${k}]`;
      if (one === null || typeof one.variables !== 'object' || one.variables === null || Array.isArray(one.variables)) {
        throw new InvalidArgumentError(`modifyInstance: ${where}.variables is not an object of names to values`);
      }
      checkEncodable(one.variables, `$${where}`);
      return { scopeId: one.scopeId ?? '', variables: { ...one.variables } };
    });
    return { elementId: given.elementId, ancestor: ancestor ?? null, variables };
  });
  const terminate = [...(instructions.terminate ?? [])];
  const notText = terminate.findIndex((id) => typeof id !== 'string');
  if (notText >= 0)
    throw new InvalidArgumentError(`modifyInstance: terminate[${notText}] is not an element instance id`);
  if (activate.length === 0 && terminate.length === 0) {
    throw new InvalidArgumentError('modifyInstance: give elements to activate or element instances to terminate');
  }
  const runtime = await parts.instances.runtime(instanceId);
  const operationId = instructions.operationId ?? null;
  if (operationId !== null && (typeof operationId !== 'string' || operationId === '')) {
    throw new InvalidArgumentError('modifyInstance: operationId must be a non-empty string');
  }
  await runtime.submit({ type: 'instance.modify', activate, terminate, operationId });
}
