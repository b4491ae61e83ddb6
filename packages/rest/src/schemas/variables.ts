/** The bodies of the element instance operations, written to the 8.8 spec (`SetVariableRequest`, ad-hoc activation). */
import { z } from 'zod';
import { Problem, ProblemKind } from '../problem.js';
import { readAs } from './read.js';

const SetVariables = z.strictObject({
  variables: z.record(z.string(), z.unknown()),
  local: z.boolean().optional(),
  operationReference: z.union([z.int(), z.string()]).optional(),
});

export function readSetVariables(body: unknown): { variables: Record<string, unknown>; local: boolean } {
  const { variables, local, operationReference } = readAs(SetVariables, body, 'the variables to set');
  if (operationReference !== undefined) {
    throw new Problem(ProblemKind.InvalidArgument, '$.operationReference: not served by Thresher yet');
  }
  return { variables, local: local ?? false };
}

const AdHocActivation = z.strictObject({
  elements: z.array(
    z.strictObject({ elementId: z.string().min(1), variables: z.record(z.string(), z.unknown()).optional() }),
  ),
  cancelRemainingInstances: z.boolean().optional(),
});

export function readAdHocActivation(body: unknown): z.output<typeof AdHocActivation> {
  return readAs(AdHocActivation, body, 'the ad-hoc activation');
}
