/**
 * The part of a PostgreSQL driver the repository uses, described structurally so that the store depends on
 * a shape rather than on a driver's types: `pg`'s `Pool` and `PoolClient` satisfy it, and {@link pglitePool}
 * adapts an in-process PGlite to it.
 */

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
