/**
 * The part of a PostgreSQL driver the repository uses, described structurally so that the store depends on
 * a shape rather than on a driver's types: `pg`'s `Pool` and `PoolClient` satisfy it, and {@link pglitePool}
 * adapts an in-process PGlite to it. And how the repository gets its pool ({@link openPool}), runs a
 * transaction on one connection ({@link inTransaction}) and reads a driver's failures.
 */
import { CheckpointError, CheckpointErrorCode } from '@thresher/checkpoint';
import { shownOption } from '@thresher/checkpoint/store-kit';

/** What a query returns: the rows, and how many rows a write affected. */
export interface PgQueryResult<TRow> {
  rows: TRow[];
  rowCount: number | null;
}

/** Something that runs one SQL statement (several, separated by `;`, when no values are bound). */
export interface PgQueryable {
  // biome-ignore lint/suspicious/noExplicitAny: pg's own `query` defaults rows to `any`; a row type is the caller's claim.
  query<TRow = any>(text: string, values?: unknown[]): Promise<PgQueryResult<TRow>>;
}

/**
 * A statement sent under a name (`pg`'s query-config form): each connection parses and plans it once, and
 * later calls send only its values.
 */
export interface PgNamedQuery {
  name: string;
  text: string;
  values: unknown[];
}

/** Something that also runs a {@link PgNamedQuery} (`pg`'s `Pool` and `PoolClient` do). */
export interface PgPreparingQueryable {
  // biome-ignore lint/suspicious/noExplicitAny: as PgQueryable's.
  query<TRow = any>(query: PgNamedQuery): Promise<PgQueryResult<TRow>>;
}

/** One connection checked out of a pool; a transaction runs on one of these. */
export interface PgClientLike extends PgQueryable {
  /** Give the connection back; with an error, the pool discards it instead of reusing it. */
  release(error?: Error | boolean): void;
}

/** A pool of connections (`pg.Pool` has this shape). */
export interface PgPoolLike extends PgQueryable {
  connect(): Promise<PgClientLike>;
  end(): Promise<void>;
}

/**
 * The part of a PGlite instance (`@electric-sql/pglite`) the adapter uses. `query` binds parameters and runs
 * one statement; `exec` runs a script of statements without parameters.
 */
export interface PGliteLike {
  // biome-ignore lint/suspicious/noExplicitAny: PGlite's own signature.
  query<TRow>(text: string, params?: any[]): Promise<{ rows: TRow[]; affectedRows?: number }>;
  exec(text: string): Promise<Array<{ rows: unknown[]; affectedRows?: number }>>;
}

/** One turnstile per PGlite instance, shared by every adapter over it: a PGlite is one session. */
const turnstiles = new WeakMap<PGliteLike, { tail: Promise<void> }>();

/**
 * Adapt a PGlite instance to {@link PgPoolLike}. PGlite is a single PostgreSQL session, so the "pool" hands
 * out one connection at a time: `connect()` waits until the previous holder has released it. Transactions
 * therefore never interleave on the one session, but nothing ever runs concurrently either — row locks,
 * `SKIP LOCKED` and races between writers are only exercised against a real server.
 *
 * `end()` does not close the PGlite instance: whoever created it owns it.
 */
export function pglitePool(db: PGliteLike): PgPoolLike {
  let turnstile = turnstiles.get(db);
  if (turnstile === undefined) {
    turnstile = { tail: Promise.resolve() };
    turnstiles.set(db, turnstile);
  }
  const gate = turnstile;

  const run = async <TRow>(text: string, values?: unknown[]): Promise<PgQueryResult<TRow>> => {
    if (values === undefined) {
      // A script (DDL, BEGIN, COMMIT): `exec` runs several statements; the last one's rows are the answer.
      const results = await db.exec(text);
      const last = results[results.length - 1];
      return { rows: (last?.rows ?? []) as TRow[], rowCount: last?.affectedRows ?? null };
    }
    const result = await db.query<TRow>(text, values);
    return { rows: result.rows, rowCount: result.affectedRows ?? null };
  };

  const connect = async (): Promise<PgClientLike> => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const previous = gate.tail;
    gate.tail = previous.then(() => held);
    await previous;
    let released = false;
    return {
      query: (text, values) => {
        if (released) return Promise.reject(new Error('query on a released PGlite connection'));
        return run(text, values);
      },
      release: () => {
        if (released) return;
        released = true;
        release();
      },
    };
  };

  return {
    connect,
    async query<TRow>(text: string, values?: unknown[]) {
      const client = await connect();
      try {
        return await client.query<TRow>(text, values);
      } finally {
        client.release();
      }
    },
    async end() {},
  };
}

/** Options of `createPostgresRepository`: exactly one of `connectionString`, `pool` and `pglite`. */
export interface PostgresRepositoryOptions {
  /** A `postgres://` URL; the repository opens (and on `close` ends) its own `pg` pool. */
  connectionString?: string;
  /** A pool the caller owns (a `pg.Pool`, or anything of its shape); `close` leaves it open. */
  pool?: PgPoolLike;
  /** An in-process PGlite instance the caller owns; `close` leaves it open. */
  pglite?: PGliteLike;
  /** The PostgreSQL schema holding the tables, created if missing. Default `thresher`. */
  schema?: string;
  /**
   * Send the common put as a named prepared statement, which each connection parses and plans once (a put is
   * ~10% quicker seen from the client). Default: `true` on the pool opened from `connectionString`, `false`
   * on a given `pool` (`true` there requires `pg`'s query-config form, `{ name, text, values }`); PGlite
   * refuses `true`. Set `false` behind a pooler that does not carry prepared statements across the
   * connections it multiplexes (PgBouncer's transaction pooling before 1.21, or with
   * `max_prepared_statements = 0`).
   */
  preparedStatements?: boolean;
}

/** The pool a repository runs on. */
export interface OpenedPool {
  pool: PgPoolLike;
  /** Whether the repository opened the pool, and so ends it on `close`. */
  owned: boolean;
  /** The database as messages name it: the connection string without its password, `PGlite`, or `the given pool`. */
  where: string;
  /** Whether the common put goes as a named prepared statement ({@link PostgresRepositoryOptions.preparedStatements}). */
  prepared: boolean;
}

/**
 * The pool of `options`: the given one, an adapted PGlite, or a `pg` pool opened on the connection string
 * (`pg` is loaded only then).
 *
 * @throws CheckpointError unless exactly one of `connectionString`, `pool` and `pglite` is given
 */
export async function openPool(options: PostgresRepositoryOptions): Promise<OpenedPool> {
  const given = (['connectionString', 'pool', 'pglite'] as const).filter((key) => options[key] !== undefined);
  if (given.length !== 1) {
    throw new CheckpointError(
      CheckpointErrorCode.Store,
      `the PostgreSQL repository needs exactly one of connectionString, pool or pglite${given.length > 1 ? `, not ${given.join(' and ')}` : ''}`,
    );
  }
  const { preparedStatements } = options;
  if (preparedStatements !== undefined && typeof preparedStatements !== 'boolean') {
    throw new CheckpointError(
      CheckpointErrorCode.Store,
      `the PostgreSQL repository's preparedStatements must be true or false, not ${shownOption(preparedStatements)}`,
    );
  }
  if (options.pool !== undefined) {
    return { pool: options.pool, owned: false, where: 'the given pool', prepared: preparedStatements ?? false };
  }
  if (options.pglite !== undefined) {
    if (preparedStatements === true) {
      throw new CheckpointError(
        CheckpointErrorCode.Store,
        'the PostgreSQL repository on PGlite runs no named prepared statements: leave preparedStatements unset or false',
      );
    }
    return { pool: pglitePool(options.pglite), owned: false, where: 'PGlite', prepared: false };
  }
  const where = redact(options.connectionString!);
  try {
    const { default: pg } = await import('pg');
    const own = new pg.Pool({ connectionString: options.connectionString });
    // An idle connection the server dropped emits 'error' on the pool; unheard, it would end the process.
    // The next query on the pool reports the problem instead.
    own.on('error', () => {});
    return { pool: own, owned: true, where, prepared: preparedStatements ?? true };
  } catch (cause) {
    throw new CheckpointError(CheckpointErrorCode.Store, `cannot open the PostgreSQL database ${where}`, { cause });
  }
}

/**
 * Run `work` in one transaction on one connection of `pool`, opened with `begin` (`BEGIN`, or `BEGIN` with an
 * isolation level, possibly followed by more statements whose answer `opened` checks before `work` runs);
 * commit if it returns, roll back if it throws. A connection that cannot roll back is discarded, not given
 * to anyone else.
 */
export async function inTransaction<T>(
  pool: PgPoolLike,
  begin: string,
  work: (client: PgClientLike) => Promise<T>,
  opened?: (result: unknown) => void,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    const begun: unknown = await client.query(begin);
    opened?.(begun);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollback: unknown) => {
      // A connection that cannot roll back is not given to anyone else.
      broken = rollback instanceof Error ? rollback : new Error(String(rollback));
    });
    throw error;
  } finally {
    client.release(broken);
  }
}

/**
 * Whether a driver failure may pass if the same call is made later. SQLSTATE classes and codes worth
 * retrying: connection failures (08), serialization failures and deadlocks (40001, 40P01), too many
 * connections (53300), a server shutting down (57P01–57P03), a lock not available (55P03); and a socket
 * that closed or refused.
 */
export function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return (
    /^08/.test(code) ||
    ['40001', '40P01', '53300', '57P01', '57P02', '57P03', '55P03'].includes(code) ||
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(code)
  );
}

/** A driver failure's message, for the store's own. */
export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The connection string without its password, for messages. */
function redact(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return 'the given connection string';
  }
}
