/**
 * `engine.migrateInstance`: the target process found (a deployment's, or the latest deployed), the mapping checked
 * for its shape, then applied in the instance's loop, where the core decides every refusal against the instance as
 * it is at that step (`core/migrate.ts`). Once durable, the loop runs the instance on the target.
 */
import { InvalidArgumentError } from '../../common/errors.js';
import type { EngineParts } from './engine-parts.js';

/** What `migrateInstance` does, as Camunda's migration plan says it. */
export interface MigrateInstructions {
  /** The target process's BPMN id (default: the instance's own). */
  processId?: string;
  /** The deployment holding it (`DeployResult.digest`); default the latest deployed. */
  digest?: string;
  /** Each active element (and each boundary event to keep) mapped to its element in the target process. */
  mapping: readonly { sourceElementId: string; targetElementId: string }[];
  /** The migration's own id: given again under it (a retry after a crash), it changes nothing. */
  operationId?: string;
}

export async function migrateInstance(
  parts: EngineParts,
  instanceId: string,
  instructions: MigrateInstructions,
): Promise<void> {
  const mapping = (instructions.mapping ?? []).map((one, n) => {
    if (typeof one?.sourceElementId !== 'string' || typeof one.targetElementId !== 'string') {
      throw new InvalidArgumentError(`migrateInstance: mapping[${n}] needs a sourceElementId and a targetElementId`);
    }
    return { sourceElementId: one.sourceElementId, targetElementId: one.targetElementId };
  });
  const operationId = instructions.operationId ?? null;
  if (operationId !== null && (typeof operationId !== 'string' || operationId === '')) {
    throw new InvalidArgumentError('migrateInstance: operationId must be a non-empty string');
  }
  const runtime = await parts.instances.runtime(instanceId);
  const processId = instructions.processId ?? runtime.current.instance.processId;
  const { deployment, process } = await parts.definitions.findProcess(processId, instructions.digest);
  const definition = { id: deployment.definitionId, version: deployment.version, digest: deployment.digest };
  await runtime.submit({ type: 'instance.migrate', target: process, definition, mapping, operationId });
}
