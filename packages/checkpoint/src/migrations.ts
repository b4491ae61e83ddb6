import type { CheckpointDocument } from './types.js';

/**
 * The migration chain: `MIGRATIONS[n - 1]` turns a schema-n document into schema n + 1. Append only; a
 * step is a pure function of the older document and never edited once released.
 */
export const MIGRATIONS: ReadonlyArray<(document: Record<string, unknown>) => Record<string, unknown>> = [];

/** Bring a document of `schema` up to the current one, step by step. */
export function migrateToCurrent(
  document: Record<string, unknown>,
  schema: number,
): CheckpointDocument & Record<string, unknown> {
  let current = document;
  for (let version = schema; version <= MIGRATIONS.length; version++) {
    const step = MIGRATIONS[version - 1]!;
    current = { ...step(current), schema: version + 1 };
  }
  return current as CheckpointDocument & Record<string, unknown>;
}
