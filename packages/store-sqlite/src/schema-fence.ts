/**
 * The schema fence: every write transaction first reads the schema version the database records (`PRAGMA
 * user_version`, in the file's header) and refuses to go on once a newer build migrated the file past what
 * this build knows. The version is read under the write lock the transaction holds, which a migration also
 * takes, so a write lands either wholly before a migration or is refused after it.
 */
import { assertStoreNotUpgraded } from '@thresher/checkpoint/store-kit';
import type { SqliteDatabase, SqliteTransaction } from './driver.js';
import { SCHEMA_VERSION } from './migrations.js';

/**
 * Wrap write work as fenced transactions on `db`: call the result's `.immediate` (as every write does) and
 * the work runs only when the database's schema is still one this build knows.
 *
 * @returns a `db.transaction` whose body first checks the schema, throwing `StoreUpgradedError` (code
 *   `THRESHER_STORE_UPGRADED`) when the recorded version is above this build's
 */
export function fencedWrites(
  db: SqliteDatabase,
  path: string,
): <TArgs extends unknown[], TResult>(work: (...args: TArgs) => TResult) => SqliteTransaction<TArgs, TResult> {
  const fence = schemaFence(db, path);
  return (work) =>
    db.transaction((...args) => {
      fence();
      return work(...args);
    });
}

/**
 * The check itself, for a transaction that runs several writes (a group-committed batch): call it first in
 * the transaction. Throws `StoreUpgradedError` when the recorded version is above this build's.
 */
export function schemaFence(db: SqliteDatabase, path: string): () => void {
  // Prepared once: each write then pays one read of the file header, a page the transaction has just read.
  const version = db.prepare('PRAGMA user_version');
  const where = `the SQLite database ${path}`;
  return () =>
    assertStoreNotUpgraded(where, Number((version.get() as { user_version: number }).user_version), SCHEMA_VERSION);
}
