// Thresher's side of the scenarios: stores, a counting repository, and the loops that drive an engine.
// Imported only by child processes that measure Thresher, so a peer's RSS never includes it.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createMemoryRepository } from '@thresher/checkpoint';
import { Engine } from '@thresher/engine';
import { createSqliteRepository } from '@thresher/store-sqlite';

export { Engine };

/** A scratch directory for SQLite files (BENCH_TMPDIR, else the OS temp dir), removed by `dispose`. */
export function scratchDir() {
  const dir = mkdtempSync(join(process.env.BENCH_TMPDIR ?? tmpdir(), 'thresher-bench-'));
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Open a store: `memory`, `sqlite` (a fresh file, `synchronous` FULL unless said: strict durability) or
 * `postgres` (a fresh schema `bench_<random>` on THRESHER_PG_URL, dropped by `dispose`).
 */
export async function openStore(kind, options = {}) {
  if (kind === 'memory') return { repository: createMemoryRepository(), dispose: async () => {} };
  if (kind === 'sqlite') {
    const scratch = options.dir || options.path ? null : scratchDir();
    const path = options.path ?? join(options.dir ?? scratch.dir, 'thresher.db');
    const repository = createSqliteRepository({ path, synchronous: options.synchronous ?? 'FULL' });
    return {
      repository,
      path,
      dir: options.dir ?? scratch?.dir ?? dirname(path),
      dispose: async () => scratch?.dispose(),
    };
  }
  if (kind === 'postgres') {
    const connectionString = process.env.THRESHER_PG_URL;
    if (!connectionString) throw new Error('THRESHER_PG_URL is not set');
    const { createPostgresRepository } = await import('@thresher/store-postgres');
    const schema = `bench_${randomBytes(6).toString('hex')}`;
    const repository = await createPostgresRepository({ connectionString, schema });
    return {
      repository,
      schema,
      dispose: async () => {
        const { default: pg } = await import('pg');
        const client = new pg.Client({ connectionString });
        await client.connect();
        try {
          await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        } finally {
          await client.end();
        }
      },
    };
  }
  throw new Error(`unknown store ${kind}`);
}

/**
 * Wrap a repository to count persist points: every `put` (a checkpoint document) and every `putWrites` (journal
 * entries), with the bytes each carried and the wall time from the call until its promise settled (`storeMs`:
 * the store's share of a persist point, its commit included; the rest of a sequential run is the engine's).
 * Everything else is passed through untouched.
 */
export function countingRepository(inner) {
  const counts = { puts: 0, putWrites: 0, putBytes: 0, writeBytes: 0, storeMs: 0 };
  const timed = (issued, started) =>
    Promise.resolve(issued).finally(() => {
      counts.storeMs += performance.now() - started;
    });
  const repository = new Proxy(inner, {
    get(target, property) {
      if (property === 'put') {
        return (checkpoint) => {
          counts.puts++;
          counts.putBytes += checkpoint.bytes.byteLength;
          const started = performance.now();
          return timed(target.put(checkpoint), started);
        };
      }
      if (property === 'putWrites') {
        return (instanceId, seq, writes, fence) => {
          counts.putWrites++;
          for (const write of writes) counts.writeBytes += write.value.byteLength;
          const started = performance.now();
          return timed(target.putWrites(instanceId, seq, writes, fence), started);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    repository,
    counts,
    reset() {
      counts.puts = 0;
      counts.putWrites = 0;
      counts.putBytes = 0;
      counts.writeBytes = 0;
      counts.storeMs = 0;
    },
  };
}

/**
 * Delete every instance the repository holds (the warm-up's), so a memory repository does not carry their
 * checkpoints into the measured section, where every garbage collection would walk them.
 */
export async function forgetInstances(repository) {
  for (;;) {
    const page = await repository.instances({ limit: 1000 });
    if (page.length === 0) return;
    for (const { instanceId } of page) await repository.delete(instanceId);
  }
}

/** Run `count` instances one after the other (start, then wait until settled); `offset` numbers them. */
export async function runSequential(engine, processId, count, offset = 0) {
  for (let i = 0; i < count; i++) {
    const id = await engine.start(processId, { variables: { i: offset + i } });
    const state = await engine.settled(id);
    if (state.status !== 'completed') throw new Error(`instance ${id} ended ${state.status}`);
  }
}
