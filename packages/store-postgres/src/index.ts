/**
 * @module @thresher/store-postgres
 *
 * The server store: a `Repository` (from `@thresher/checkpoint`) on PostgreSQL through a `pg` pool, or on an
 * in-process PGlite. Documents and journal values are `BYTEA`, returned byte for byte; each write is one
 * transaction that locks the instance's row, so writers in many processes serialise per instance. The tables
 * live in one schema (default `thresher`), migrated on open under an advisory lock; a schema written by a
 * newer build is refused. It passes the `@thresher/conformance` suite.
 */

export type { Repository } from '@thresher/checkpoint';
export type { SchemaMigration } from '@thresher/checkpoint/store-kit';
export type {
  PGliteLike,
  PgClientLike,
  PgNamedQuery,
  PgPoolLike,
  PgPreparingQueryable,
  PgQueryable,
  PgQueryResult,
  PostgresRepositoryOptions,
} from './driver.js';
export { pglitePool } from './driver.js';
export type { Migration } from './migrations.js';
export { DEFAULT_SCHEMA, MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
export { createPostgresRepository } from './open.js';
export type { PostgresRepository } from './postgres-store.js';
