/** The body of `POST /process-instances/{key}/modification`, written to the 8.8 spec. */
import { z } from 'zod';
import { Problem, ProblemKind } from '../problem.js';
import { readAs } from './read.js';

const Key = z.union([z.string().min(1), z.int()]).transform(String);

const Modification = z.strictObject({
  operationReference: z.union([z.int(), z.string()]).optional(),
  activateInstructions: z
    .array(
      z.strictObject({
        elementId: z.string().min(1),
        variableInstructions: z
          .array(z.strictObject({ variables: z.record(z.string(), z.unknown()), scopeId: z.string().optional() }))
          .optional(),
        ancestorElementInstanceKey: Key.optional(),
      }),
    )
    .optional(),
  terminateInstructions: z.array(z.strictObject({ elementInstanceKey: Key })).optional(),
});

export type ModificationBody = Omit<z.output<typeof Modification>, 'operationReference'>;

export function readModification(body: unknown): ModificationBody {
  const { operationReference, ...read } = readAs(Modification, body, 'the modification');
  if (operationReference !== undefined) {
    throw new Problem(ProblemKind.InvalidArgument, '$.operationReference: not served by Thresher yet');
  }
  return read;
}

const Migration = z.strictObject({
  targetProcessDefinitionKey: Key,
  mappingInstructions: z.array(
    z.strictObject({ sourceElementId: z.string().min(1), targetElementId: z.string().min(1) }),
  ),
  operationReference: z.union([z.int(), z.string()]).optional(),
});

export type MigrationBody = Omit<z.output<typeof Migration>, 'operationReference'>;

/** The body of `POST /process-instances/{key}/migration`. */
export function readMigration(body: unknown): MigrationBody {
  const { operationReference, ...read } = readAs(Migration, body, 'the migration');
  if (operationReference !== undefined) {
    throw new Problem(ProblemKind.InvalidArgument, '$.operationReference: not served by Thresher yet');
  }
  return read;
}
