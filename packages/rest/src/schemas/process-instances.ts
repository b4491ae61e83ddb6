import { z } from 'zod';
import { Problem, ProblemKind } from '../problem.js';
import { readAs } from './read.js';
import { readReferenceOnly } from './reference.js';

const common = {
  variables: z.record(z.string(), z.unknown()).optional(),
  tenantId: z.string().optional(),
  operationReference: z.union([z.int(), z.string()]).optional(),
  startInstructions: z.array(z.unknown()).optional(),
  runtimeInstructions: z.array(z.unknown()).optional(),
  awaitCompletion: z.boolean().optional(),
  fetchVariables: z.array(z.string()).optional(),
  requestTimeout: z.int().min(0).optional(),
  tags: z.array(z.string()).optional(),
};

/** `POST /process-instances` by BPMN id (and version, -1 the latest). */
const ById = z.strictObject({
  processDefinitionId: z.string().min(1),
  processDefinitionVersion: z.int().optional(),
  ...common,
});

/** `POST /process-instances` by process definition key. */
const ByKey = z.strictObject({ processDefinitionKey: z.string().min(1), ...common });

export type CreateProcessInstance = z.output<typeof ById> | z.output<typeof ByKey>;

/** The creation, read by the form it takes (by key when it names one), so a refusal names the field. */
export function readCreateProcessInstance(body: unknown): CreateProcessInstance {
  const fields = typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {};
  if ('processDefinitionKey' in fields && 'processDefinitionId' in fields) {
    throw new Problem(
      ProblemKind.InvalidArgument,
      'the process instance creation names a process by processDefinitionId or by processDefinitionKey, not both',
    );
  }
  const schema = 'processDefinitionKey' in fields ? ByKey : ById;
  return readAs(schema, body, 'the process instance creation');
}

/** `POST /process-instances/{key}/cancellation`: no body, or one with an operation reference, not served yet. */
export function readCancellation(body: unknown): void {
  readReferenceOnly(body, 'the cancellation');
}
