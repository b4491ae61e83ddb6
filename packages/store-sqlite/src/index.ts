/**
 * @module @thresher/store-sqlite
 *
 * The embedded default store: a `Repository` (from `@thresher/checkpoint`) on one SQLite file through
 * better-sqlite3. Documents are kept as BLOBs, byte for byte; the file runs in WAL mode with
 * `synchronous=FULL` by default, so an acknowledged `put` is durable and several processes may share the
 * file. The schema is migrated on open and a database from a newer build is refused. It passes the
 * `@thresher/conformance` suite.
 */

export type { Repository } from '@thresher/checkpoint';
export type { SchemaMigration } from '@thresher/checkpoint/store-kit';
export type {
  SqliteDatabase,
  SqliteRepositoryOptions,
  SqliteStatement,
  SqliteTransaction,
} from './driver.js';
export type { Migration } from './migrations.js';
export { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
export { createSqliteRepository } from './open.js';
export type { SqliteRepository } from './sqlite-store.js';
