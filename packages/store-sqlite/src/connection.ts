/**
 * The part of a SQLite driver the repository uses, described structurally so that the store depends on a shape
 * rather than on a driver's types (better-sqlite3's `Database` satisfies it). Below every other module of the
 * store, the migrations included.
 */

/** The part of a prepared statement the repository uses (better-sqlite3's `Statement` has this shape). */
export interface SqliteStatement {
  run(...params: unknown[]): { changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** A function wrapped in a transaction: call it for BEGIN DEFERRED, or `.immediate` for BEGIN IMMEDIATE. */
export interface SqliteTransaction<TArgs extends unknown[], TResult> {
  (...args: TArgs): TResult;
  immediate(...args: TArgs): TResult;
}

/**
 * The part of a synchronous SQLite connection the repository uses, described structurally so that the
 * store depends on a shape rather than on the driver's types (better-sqlite3's `Database` satisfies it).
 */
export interface SqliteDatabase {
  prepare(source: string): SqliteStatement;
  exec(source: string): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<TArgs extends unknown[], TResult>(fn: (...args: TArgs) => TResult): SqliteTransaction<TArgs, TResult>;
  close(): unknown;
}
