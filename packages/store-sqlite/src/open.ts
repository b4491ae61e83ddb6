/**
 * Opening the SQLite store: the file opened and configured (WAL, foreign keys, busy timeout), its schema migrated,
 * the repository made.
 *
 * @module
 */
import { configured, openDatabase, type SqliteRepositoryOptions } from './driver.js';
import { migrate } from './migrations.js';
import { type SqliteRepository, SqliteStore } from './sqlite-store.js';

/**
 * Open (creating if needed) a SQLite database as a {@link Repository}.
 *
 * @remarks
 * The connection runs in WAL mode with `foreign_keys` on and a 5 s busy timeout, so several processes may
 * open the same file: readers never block the writer, and writers queue on SQLite's lock. The schema is
 * migrated on open; a database written by a newer build is refused with a `CheckpointError` whose code is
 * `THRESHER_FUTURE_SCHEMA`.
 *
 * @example
 * ```ts
 * const repository = createSqliteRepository({ path: './.thresher/thresher.db' });
 * try {
 *   await repository.put(checkpoint);
 * } finally {
 *   await repository.close();
 * }
 * ```
 */
export function createSqliteRepository(options: SqliteRepositoryOptions): SqliteRepository {
  const { db, path } = openDatabase(options);
  return configured(db, path, () => {
    migrate(db, path);
    return new SqliteStore(db, path);
  });
}
