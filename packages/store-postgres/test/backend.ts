import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { createPostgresRepository, type PgPoolLike, type PostgresRepository, pglitePool } from '../src/index.js';

/**
 * Where the tests run: the real server named by `THRESHER_PG_URL`, else an in-process PGlite (one per test
 * file: starting one takes a few seconds). Either way every test gets its own schema, dropped afterwards,
 * so runs on a shared server do not collide.
 */
export const PG_URL = process.env.THRESHER_PG_URL?.trim() || undefined;

export type BackendKind = 'server' | 'pglite';

export const BACKEND: BackendKind = PG_URL === undefined ? 'pglite' : 'server';

/** Why a test that needs several concurrent connections does not run on PGlite. */
export const NEEDS_SERVER =
  'needs concurrent connections to a real PostgreSQL server (THRESHER_PG_URL): PGlite is one session, so nothing there runs concurrently';

/** A schema name no other test or run uses. */
export function freshSchema(): string {
  return `thresher_test_${randomBytes(6).toString('hex')}`;
}

let pglite: Promise<PGlite> | undefined;
let admin: PgPoolLike | undefined;

/** The PGlite of this test file, started on first use. */
export function sharedPGlite(): Promise<PGlite> {
  pglite ??= PGlite.create();
  return pglite;
}

/** A pool for inspecting and tampering with the database behind a repository's back. */
export async function adminPool(): Promise<PgPoolLike> {
  if (admin === undefined) {
    if (PG_URL === undefined) {
      admin = pglitePool(await sharedPGlite());
    } else {
      const pool = new pg.Pool({ connectionString: PG_URL, max: 4 });
      pool.on('error', () => {});
      admin = pool;
    }
  }
  return admin;
}

/** A repository on this file's backend, in `schema`. On the server each one opens its own pool. */
export async function openRepository(schema: string): Promise<PostgresRepository> {
  return PG_URL === undefined
    ? createPostgresRepository({ pglite: await sharedPGlite(), schema })
    : createPostgresRepository({ connectionString: PG_URL, schema });
}

/** A repository whose pool records the text of every statement it sends, one entry per round trip. */
export interface CountedRepository {
  repository: PostgresRepository;
  /** What was sent since the repository opened (or the caller last emptied it), in order, whitespace folded. */
  statements: string[];
  /** Close the repository, and the pool it ran on when the test opened one. */
  close(): Promise<void>;
}

/**
 * A repository in `schema` on this file's backend, on a pool that records every statement it sends; `before`,
 * when given, is awaited before each statement goes (a test holds one there).
 */
export async function openCountedRepository(
  schema: string,
  options: { before?: (text: string) => Promise<void> } = {},
): Promise<CountedRepository> {
  let inner: PgPoolLike;
  if (PG_URL === undefined) {
    inner = pglitePool(await sharedPGlite());
  } else {
    const own = new pg.Pool({ connectionString: PG_URL, max: 4 });
    own.on('error', () => {});
    inner = own;
  }
  const statements: string[] = [];
  const record = (text: string) => statements.push(text.replace(/\s+/g, ' ').trim());
  const { before } = options;
  const send = <T>(text: string, query: () => Promise<T>): Promise<T> => {
    record(text);
    return before ? before(text).then(query) : query();
  };
  const pool: PgPoolLike = {
    query: (text, values) => send(text, () => inner.query(text, values)),
    async connect() {
      const client = await inner.connect();
      return {
        query: (text, values) => send(text, () => client.query(text, values)),
        release: (error) => client.release(error),
      };
    },
    end: () => inner.end(),
  };
  const repository = await createPostgresRepository({ pool, schema });
  statements.length = 0;
  return {
    repository,
    statements,
    async close() {
      await repository.close();
      // A pool the test gave is the test's to end; the PGlite adapter's end is a no-op.
      await inner.end();
    },
  };
}

export async function dropSchema(schema: string): Promise<void> {
  await (await adminPool()).query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}

/** End the admin pool and the PGlite; call from `afterAll`. */
export async function closeBackend(): Promise<void> {
  await admin?.end();
  admin = undefined;
  const started = pglite;
  pglite = undefined;
  if (started !== undefined) await (await started).close();
}
