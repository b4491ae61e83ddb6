/**
 * How a SQLite connection is opened and configured: WAL, `synchronous`, foreign keys and a busy timeout, the
 * schema version checked before anything writes (the connection's shape is `connection.ts`).
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CheckpointError, CheckpointErrorCode } from '@thresher/checkpoint';
import { shownOption } from '@thresher/checkpoint/store-kit';
import Database from 'better-sqlite3';
import type { SqliteDatabase } from './connection.js';
import { assertKnownSchema, schemaVersion } from './migrations.js';

export type { SqliteDatabase, SqliteStatement, SqliteTransaction } from './connection.js';

/** Options of `createSqliteRepository`. */
export interface SqliteRepositoryOptions {
  /** The database file; missing parent directories are created. `':memory:'` for a private in-memory database. */
  path: string;
  /**
   * `FULL` (the default) syncs the WAL on every commit, so an acknowledged `put` survives power loss.
   * `NORMAL` syncs only at WAL checkpoints: still consistent after a crash, but the last commits before a
   * power loss (not a process crash) may be lost.
   */
  synchronous?: 'FULL' | 'NORMAL';
  /**
   * How many bytes of the database file SQLite reads through a memory map instead of a `read` system call
   * per page (`PRAGMA mmap_size`); writes go through the WAL as always. Default 256 MiB; `0` reads every
   * page with `pread`. A value this SQLite build cannot map is refused, as is a size for `':memory:'`.
   */
  mmapSize?: number;
}

/** How long a connection waits for another connection's (or process's) write lock before failing. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * WAL pages after which a commit copies the log into the database file (SQLite's default is 1,000). A
 * group-committed batch writes hundreds of pages at once, so at 1,000 nearly every batch's callers also waited
 * for that copy and its fsync; at 10,000 (a WAL of up to ~40 MB) it comes ten times less often. Measured: 1,000
 * instances completed at once, 115–148 ms → 87–100 ms.
 */
const WAL_AUTOCHECKPOINT_PAGES = 10_000;

/**
 * Bytes of the file read through a memory map by default. A restore reads every head once, page by page: a
 * system call per page is most of that read on a cold cache (measured: 10,000 heads, ~17.5 → ~9.7 µs each).
 * Mapped pages the engine touched count in its RSS (page cache, reclaimable), so the map is bounded.
 */
const DEFAULT_MMAP_BYTES = 256 * 2 ** 20;

/**
 * Open (creating if needed) the database file of `options` and configure the connection: a 5 s busy
 * timeout, WAL mode (refused where the file system cannot do it), `synchronous`, `foreign_keys` on and the
 * file read through a memory map of `mmapSize`. A database written by a newer build is refused before
 * anything writes to the file. On failure the connection is closed and a `CheckpointError` thrown.
 *
 * @returns the connection, and the database's absolute path (or `':memory:'`), which messages name
 */
export function openDatabase(options: SqliteRepositoryOptions): { db: SqliteDatabase; path: string } {
  const { path } = options;
  const synchronous = options.synchronous ?? 'FULL';
  if (typeof path !== 'string' || path === '') {
    throw new CheckpointError(CheckpointErrorCode.Store, 'the SQLite repository needs a file path (or ":memory:")');
  }
  if (synchronous !== 'FULL' && synchronous !== 'NORMAL') {
    throw new CheckpointError(
      CheckpointErrorCode.Store,
      `synchronous must be 'FULL' or 'NORMAL', not ${shownOption(synchronous)}`,
    );
  }
  const mmapSize = options.mmapSize ?? DEFAULT_MMAP_BYTES;
  if (typeof mmapSize !== 'number' || !Number.isSafeInteger(mmapSize) || mmapSize < 0) {
    throw new CheckpointError(
      CheckpointErrorCode.Store,
      `mmapSize must be a whole number of bytes, 0 or more, not ${shownOption(options.mmapSize)}`,
    );
  }
  const inMemory = path === ':memory:';
  if (inMemory && mmapSize > 0 && options.mmapSize !== undefined) {
    throw new CheckpointError(
      CheckpointErrorCode.Store,
      `mmapSize ${mmapSize} maps a database file, and ":memory:" has none (leave it out, or 0)`,
    );
  }
  const name = inMemory ? path : resolve(path);
  let db: SqliteDatabase;
  try {
    if (!inMemory) mkdirSync(dirname(name), { recursive: true });
    db = new Database(name);
  } catch (cause) {
    throw new CheckpointError(CheckpointErrorCode.Store, `cannot open the SQLite database ${name}`, { cause });
  }
  return configured(db, name, () => {
    // Set first, so that everything below waits for a lock another process holds instead of failing.
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // Checked before anything writes to the file (switching to WAL does): a newer database stays untouched.
    assertKnownSchema(name, schemaVersion(db));
    const journalMode = whenUnlocked(() => db.pragma('journal_mode = WAL', { simple: true }));
    if (!inMemory && journalMode !== 'wal') {
      throw new CheckpointError(
        CheckpointErrorCode.Store,
        `the SQLite database ${name} cannot use WAL mode (journal_mode is ${String(journalMode)}); put it on a local file system`,
      );
    }
    db.pragma(`synchronous = ${synchronous}`);
    db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
    db.pragma('foreign_keys = ON');
    if (!inMemory) mapFile(db, mmapSize, options.mmapSize !== undefined);
    return { db, path: name };
  });
}

/**
 * Read up to `bytes` of the file through a memory map. SQLite lowers a size past its build's limit without a
 * word: a size the caller `asked` for is refused instead, the default takes what the build grants.
 */
function mapFile(db: SqliteDatabase, bytes: number, asked: boolean): void {
  const granted = Number(db.pragma(`mmap_size = ${bytes}`, { simple: true }));
  if (asked && granted !== bytes) {
    throw new CheckpointError(
      CheckpointErrorCode.Store,
      `mmapSize ${bytes} is more than this SQLite build maps (at most ${granted} bytes)`,
    );
  }
}

/**
 * Run `setUp` on a freshly opened connection; if it throws, close the connection and rethrow as a
 * `CheckpointError` (one already is passes through unchanged).
 */
export function configured<T>(db: SqliteDatabase, path: string, setUp: () => T): T {
  try {
    return setUp();
  } catch (error) {
    db.close();
    throw CheckpointError.is(error)
      ? error
      : new CheckpointError(CheckpointErrorCode.Store, `cannot open the SQLite database ${path}`, { cause: error });
  }
}

/**
 * Whether a driver failure may pass if the same call is made later: another connection (or process) held
 * the lock past the busy timeout.
 */
/**
 * Run `work`, again while it finds the file locked, for up to the busy timeout: switching a fresh file to WAL is
 * refused at once (no busy handler waits for it) while another process opening it at the same time holds a lock.
 */
function whenUnlocked<T>(work: () => T): T {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      return work();
    } catch (error) {
      if (!isTransient(error) || Date.now() >= deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

export function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(code);
}
