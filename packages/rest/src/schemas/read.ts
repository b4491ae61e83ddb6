import type { z } from 'zod';
import { Problem, ProblemKind } from '../problem.js';

/**
 * `value` as `schema` reads it, or a 400 naming each place it was wrong (`$.variables.x: …`) and nothing
 * changed. Schemas are built once, at import.
 */
export function readAs<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const places = result.error.issues.map((issue) => `${jsonPath(issue.path)}: ${issue.message}`);
  throw new Problem(ProblemKind.InvalidArgument, `${what} is not valid: ${places.join('; ')}`);
}

function jsonPath(path: readonly PropertyKey[]): string {
  let text = '$';
  for (const key of path) text += typeof key === 'number' ? `[${key}]` : `.${String(key)}`;
  return text;
}
