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
  | { kind: 'memory' };

const SQLITE_EXTENSIONS = ['.db', '.sqlite', '.sqlite3'];

/**
 * Reads a `--store` value: `sqlite:PATH` (`sqlite:///abs.db` too), a bare path ending in `.db`
 * (`.sqlite`, `.sqlite3`), or `memory:` (keeps nothing). Relative paths resolve against `cwd`. With no
 * value, `./.thresher/thresher.db`. `postgres://…` and anything else throw `UsageError`.
 *
 * @example parseStoreUrl('sqlite:data/app.db', '/srv') // { kind: 'sqlite', path: '/srv/data/app.db', … }
 */
export function parseStoreUrl(value: string | undefined, cwd: string, usage?: string): StoreSpec {
  if (value === undefined) return { kind: 'sqlite', path: resolve(cwd, DEFAULT_STORE_PATH) };
  const url = value.trim();
  if (url === 'memory:' || url === 'memory://') return { kind: 'memory' };
  if (/^postgres(ql)?:/i.test(url)) {
    throw new UsageError(
      `--store ${value}: PostgreSQL store not available yet; use sqlite:PATH, PATH.db or memory:`,
      usage,
    );
  }
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
  return spec.kind === 'memory' ? 'memory: (keeps nothing)' : spec.path;
}

/**
 * Opens the repository of a store. With `create: false` (commands that only read or continue
 * instances) a SQLite file that does not exist is not created: the command sees an empty store.
 */
export async function openStore(spec: StoreSpec, options: { create: boolean }): Promise<Repository> {
  if (spec.kind === 'memory') return createMemoryRepository();
  if (!existsSync(spec.path)) {
    if (!options.create) return createMemoryRepository();
    await mkdir(dirname(spec.path), { recursive: true });
  }
  // Loaded on demand: `inspect` and `memory:` runs never load the native SQLite binding.
  const { createSqliteRepository } = await import('@thresher/store-sqlite');
  return createSqliteRepository({ path: spec.path });
}
