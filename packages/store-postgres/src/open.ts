/**
 * Opening the PostgreSQL store: the pool (or PGlite) connected, the schema's tables migrated under an advisory
 * lock, the repository made.
 *
 * @module
 */
import { CheckpointError, CheckpointErrorCode } from '@thresher/checkpoint';
import { describe, isTransient, openPool, type PostgresRepositoryOptions } from './driver.js';
import { DEFAULT_SCHEMA, migrate, quoteSchema } from './migrations.js';
import { type PostgresRepository, PostgresStore } from './postgres-store.js';
/**
 * Open a PostgreSQL database (or a PGlite instance) as a {@link Repository}, creating or upgrading its tables.
 *
 * @remarks
 * The tables of `schema` are migrated on open, inside a transaction holding an advisory lock, so processes
 * opening at once migrate once. A schema written by a newer build is refused with a `CheckpointError` whose
 * code is `THRESHER_FUTURE_SCHEMA`. Documents and journal values are `BYTEA`, returned byte for byte.
 *
 * @example
 * ```ts
 * const repository = await createPostgresRepository({ connectionString: 'postgres://localhost/app' });
 * try {
 *   await repository.put(checkpoint);
 * } finally {
 *   await repository.close();
 * }
 * ```
 */
export async function createPostgresRepository(options: PostgresRepositoryOptions): Promise<PostgresRepository> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  quoteSchema(schema);
  const { pool, owned, where, prepared } = await openPool(options);
  try {
    await migrate(pool, schema);
  } catch (error) {
    if (owned) await pool.end().catch(() => {});
    throw CheckpointError.is(error)
      ? error
      : new CheckpointError(
          CheckpointErrorCode.Store,
          `cannot open the PostgreSQL schema "${schema}" in ${where}: ${describe(error)}`,
          { cause: error, retryable: isTransient(error) },
        );
  }
  return new PostgresStore(pool, { schema, where, owned, prepared });
}
