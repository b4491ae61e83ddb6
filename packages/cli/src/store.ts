import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { createMemoryRepository, type Repository } from '@thresher/checkpoint';
import { UsageError } from './errors.js';

/** The store used when neither `--store` nor `$THRESHER_STORE` says, relative to the working directory. */
export const DEFAULT_STORE_PATH = './.thresher/thresher.db';

/** Where a command keeps its instances, as `--store` named it. */
export type StoreSpec =
  | {
      kind: 'sqlite';
      /** Absolute. */
      path: string;
    }
  | {
      kind: 'postgres';
      /** The URL as `pg` takes it: `--store` without its `schema` parameter. */
      connectionString: string;
      /** The `?schema=NAME` of the URL; absent: the store's default, `thresher`. */
      schema?: string;
      /** The `?preparedStatements=true|false` of the URL; absent: the store's default (`true`). */
      preparedStatements?: boolean;
    }
  | { kind: 'memory' };

const SQLITE_EXTENSIONS = ['.db', '.sqlite', '.sqlite3'];

/** A PostgreSQL schema name `--store postgres://…?schema=NAME` accepts: a plain, unquoted-style identifier. */
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * Reads a `--store` value: `sqlite:PATH` (`sqlite:///abs.db` too), a bare path ending in `.db`
 * (`.sqlite`, `.sqlite3`), `postgres://…` or `postgresql://…` (a PostgreSQL server; `?schema=NAME` picks
 * the schema, default `thresher`; `?preparedStatements=false` sends the put unnamed, for a pooler that keeps
 * no prepared statements), or `memory:` (keeps nothing). Relative paths resolve against `cwd`.
 * With no value, `./.thresher/thresher.db`. Anything else throws `UsageError`.
 *
 * @example parseStoreUrl('sqlite:data/app.db', '/srv') // { kind: 'sqlite', path: '/srv/data/app.db', … }
 * @example parseStoreUrl('postgres://db/app?schema=t1', '/srv') // { kind: 'postgres', connectionString: 'postgres://db/app', schema: 't1' }
 */
export function parseStoreUrl(value: string | undefined, cwd: string, usage?: string): StoreSpec {
  if (value === undefined) return { kind: 'sqlite', path: resolve(cwd, DEFAULT_STORE_PATH) };
  const url = value.trim();
  if (url === 'memory:' || url === 'memory://') return { kind: 'memory' };
  if (/^postgres(ql)?:/i.test(url)) return parsePostgresUrl(value, url, usage);
  if (/^sqlite:/i.test(url)) {
    let path = url.slice('sqlite:'.length);
    if (path.startsWith('//')) path = path.slice(2);
    if (path === '') throw new UsageError(`--store ${value}: the SQLite file path is missing (sqlite:PATH)`, usage);
    return { kind: 'sqlite', path: resolve(cwd, path) };
  }
  const looksLikeUrl = /^[A-Za-z][A-Za-z0-9+.-]*:/.test(url) && !isAbsolute(url) && !/^[A-Za-z]:[\\/]/.test(url);
  if (!looksLikeUrl && SQLITE_EXTENSIONS.some((extension) => url.toLowerCase().endsWith(extension))) {
    return { kind: 'sqlite', path: resolve(cwd, url) };
  }
  throw new UsageError(
    `--store ${JSON.stringify(value)}: unknown store; use sqlite:PATH, a path ending in .db, or memory:`,
    usage,
  );
}

function parsePostgresUrl(value: string, url: string, usage: string | undefined): StoreSpec {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--store ${value}: not a PostgreSQL URL; use postgres://USER@HOST:PORT/DATABASE`, usage);
  }
  if (!url.slice(parsed.protocol.length).startsWith('//')) {
    throw new UsageError(`--store ${value}: not a PostgreSQL URL; use postgres://USER@HOST:PORT/DATABASE`, usage);
  }
  const schemas = parsed.searchParams.getAll('schema');
  if (schemas.length > 1) throw new UsageError(`--store ${value}: give ?schema= once`, usage);
  const schema = schemas[0];
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new UsageError(
      `--store ${value}: the schema name ${JSON.stringify(schema)} is not usable; use letters, digits and _ (at most 63, not starting with a digit)`,
      usage,
    );
  }
  const prepared = parsed.searchParams.getAll('preparedStatements');
  if (prepared.length > 1 || (prepared[0] !== undefined && prepared[0] !== 'true' && prepared[0] !== 'false')) {
    throw new UsageError(`--store ${value}: give ?preparedStatements= once, true or false`, usage);
  }
  // `schema` and `preparedStatements` are Thresher's, not libpq's: pg would not know them. Every other
  // parameter (sslmode, …) stays.
  parsed.searchParams.delete('schema');
  parsed.searchParams.delete('preparedStatements');
  return {
    kind: 'postgres',
    connectionString: parsed.toString(),
    ...(schema === undefined ? {} : { schema }),
    ...(prepared[0] === undefined ? {} : { preparedStatements: prepared[0] === 'true' }),
  };
}

/** The store of a command: `--store`, else `$THRESHER_STORE`, else the default file. */
export function storeFromArgs(
  store: string | undefined,
  env: Record<string, string | undefined>,
  cwd: string,
  usage?: string,
): StoreSpec {
  const value = store ?? (env.THRESHER_STORE?.trim() ? env.THRESHER_STORE : undefined);
  return parseStoreUrl(value, cwd, usage);
}

/** How `thresher` names a store to the user. */
export function describeStore(spec: StoreSpec): string {
  switch (spec.kind) {
    case 'memory':
      return 'memory: (keeps nothing)';
    case 'sqlite':
      return spec.path;
    case 'postgres':
      return `${redactPassword(spec.connectionString)} (schema ${spec.schema ?? 'thresher'})`;
  }
}

/** A URL with its password (if any) masked, for messages. */
function redactPassword(connectionString: string): string {
  const url = new URL(connectionString);
  if (url.password !== '') url.password = '***';
  return url.toString();
}

/**
 * Opens the repository of a store. With `create: false` (commands that only read or continue
 * instances) a SQLite file that does not exist is not created: the command sees an empty store.
 * A PostgreSQL store creates (or upgrades) its tables on open, whatever the command.
 */
export async function openStore(spec: StoreSpec, options: { create: boolean }): Promise<Repository> {
  if (spec.kind === 'memory') return createMemoryRepository();
  if (spec.kind === 'postgres') {
    // Loaded on demand, as SQLite is: other stores never load the PostgreSQL driver.
    const { createPostgresRepository } = await import('@thresher/store-postgres');
    const { kind: _, ...options } = spec;
    return createPostgresRepository(options);
  }
  if (!existsSync(spec.path)) {
    if (!options.create) return createMemoryRepository();
    await mkdir(dirname(spec.path), { recursive: true });
  }
  // Loaded on demand: `inspect` and `memory:` runs never load the native SQLite binding.
  const { createSqliteRepository } = await import('@thresher/store-sqlite');
  return createSqliteRepository({ path: spec.path });
}
