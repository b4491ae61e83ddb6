/**
 * The schema fence: every write transaction opens by taking the migration lock shared and reading the schema
 * version the schema records, and goes on only while that version is one this build knows. A migration
 * takes the same lock exclusively (`migrate`), so a write lands wholly before a migration or sees its
 * version after it: a process that opened the schema before a newer build migrated it stops writing.
 */
import { assertStoreNotUpgraded } from '@thresher/checkpoint/store-kit';
import type { PgQueryResult } from './driver.js';
import { migrationLockKey, SCHEMA_VERSION } from './migrations.js';

/**
 * What a fenced write transaction sends to open: `BEGIN`, the migration lock taken shared, and the recorded
 * version, as one batch (one round trip). The version is read by its own statement, after the lock is held,
 * so its snapshot includes a migration that committed while the lock was awaited.
 *
 * @param schema the plain schema name (`quoteSchema` accepted it, so it is safe inside a literal)
 * @param quoted the quoted schema name
 */
export function fencedBegin(schema: string, quoted: string): string {
  return [
    'BEGIN',
    `SELECT pg_advisory_xact_lock_shared(hashtextextended('${migrationLockKey(schema)}', 0))`,
    `SELECT MAX(version) AS version FROM ${quoted}.schema_migrations`,
  ].join('; ');
}

/**
 * Check what {@link fencedBegin} returned: `pg` answers a batch with one result per statement, PGlite (and
 * the adapter) with the last one; the version is in the last.
 *
 * @throws StoreUpgradedError (code `THRESHER_STORE_UPGRADED`) when the version is above this build's
 */
export function checkFencedBegin(opened: unknown, where: string): void {
  const results = (Array.isArray(opened) ? opened : [opened]) as PgQueryResult<{ version: number | string | null }>[];
  const version = Number(results[results.length - 1]?.rows[0]?.version ?? 0);
  assertStoreNotUpgraded(where, version, SCHEMA_VERSION);
}
