import { z } from 'zod';
import { Problem, ProblemKind } from '../problem.js';
import { readAs } from './read.js';

/** A body that may hold only an operation reference, which Thresher does not serve yet: none, or `{}`. */
const ReferenceOnly = z.strictObject({ operationReference: z.union([z.int(), z.string()]).optional() });

export function readReferenceOnly(body: unknown, what: string): void {
  const { operationReference } = readAs(ReferenceOnly, body ?? {}, what);
  if (operationReference !== undefined) {
    throw new Problem(ProblemKind.InvalidArgument, '$.operationReference: not served by Thresher yet');
  }
}
