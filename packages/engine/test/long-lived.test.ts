/**
 * Issue 55's proof: a polling loop of 10,000 polls on SQLite and on PostgreSQL (the THRESHER_PG_URL server, else
 * PGlite) keeps its head document, the store's bytes per poll and the engine's heap flat, and its history whole.
 * Sizes, not times: how fast the late polls go beside the early ones is the bench's (`pnpm bench`, scenario 12).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { PGlite } from '@electric-sql/pglite';
import type { Repository } from '@thresher/checkpoint';
import { createPostgresRepository, type PgPoolLike, pglitePool } from '@thresher/store-postgres';
import { createSqliteRepository } from '@thresher/store-sqlite';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../src/engine.js';
import type { Job } from '../src/index.js';

const POLLS = 10_000;
const model = readFileSync(new URL('../../../fixtures/long-lived/poll.bpmn', import.meta.url), 'utf8');

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** The heap in use once everything unreachable is collected. */
function heapUsed(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** A store under test: the repository, and its bytes once the engine closed it. */
interface Store {
  repository: Repository;
  bytes(): Promise<number>;
  dispose(): Promise<void>;
}

function sqliteStore(): Store {
  const directory = mkdtempSync(join(tmpdir(), 'thresher-long-lived-'));
  const path = join(directory, 'poll.db');
  return {
    repository: createSqliteRepository({ path }),
    // The file once the repository closed: closing the last connection copies the WAL's frames in.
    async bytes() {
      return statSync(path).size;
    },
    async dispose() {
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

const PG_URL = process.env.THRESHER_PG_URL?.trim() || undefined;
let pglite: PGlite | undefined;

async function postgresStore(): Promise<Store> {
  const schema = `thresher_long_${randomBytes(6).toString('hex')}`;
  let admin: PgPoolLike;
  if (PG_URL === undefined) {
    pglite ??= await PGlite.create();
    admin = pglitePool(pglite);
  } else {
    const pool = new pg.Pool({ connectionString: PG_URL, max: 2 });
    pool.on('error', () => {});
    admin = pool;
  }
  const repository =
    PG_URL === undefined
      ? await createPostgresRepository({ pglite: pglite!, schema })
      : await createPostgresRepository({ connectionString: PG_URL, schema });
  // PGlite is one session: the admin's statements run on it, between the repository's.
  return {
    repository,
    // The store's tables with their indexes and TOAST, after VACUUM marked the space of pruned rows free.
    async bytes() {
      const { rows: tables } = await admin.query<{ name: string }>(
        `SELECT tablename AS name FROM pg_tables WHERE schemaname = $1`,
        [schema],
      );
      for (const { name } of tables) await admin.query(`VACUUM "${schema}"."${name}"`, []);
      const { rows } = await admin.query<{ bytes: string | number }>(
        `SELECT sum(pg_total_relation_size(c.oid)) AS bytes FROM pg_class c
          JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
        [schema],
      );
      return Number(rows[0]!.bytes);
    },
    async dispose() {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`, []);
      await admin.end();
    },
  };
}

afterAll(async () => {
  await pglite?.close();
});

describe.each([
  ['SQLite', async () => sqliteStore()],
  [PG_URL === undefined ? 'PostgreSQL (PGlite)' : 'PostgreSQL', postgresStore],
])('a polling loop of 10,000 polls on %s', (_, open) => {
  it('should keep its head document, the store per poll and the heap flat, and list every completion in order', async () => {
    // given an instance polling a supplier 10,000 times, sampled at poll 51 and 10,000, and heap at 101
    const store = await open();
    const { repository } = store;
    const sampled: { head50?: number; head9999?: number; heap100?: number } = {};
    let id = '';
    const engine = new Engine({
      repository,
      handlers: {
        'poll-supplier': async ({ variables }: Job) => {
          const polls = Number(variables.polls) + 1;
          // The head as this poll's job was dispatched: the polls before it done.
          if (polls === 51) sampled.head50 = (await repository.get(id))!.bytes.byteLength;
          if (polls === POLLS) sampled.head9999 = (await repository.get(id))!.bytes.byteLength;
          if (polls === 101) sampled.heap100 = heapUsed();
          return { polls };
        },
      },
    });
    try {
      await engine.deploy(model);
      id = await engine.start('supplier-poll', { variables: { limit: POLLS, polls: 0 } });

      // when it has run to its end
      expect((await engine.settled(id)).status).toBe('completed');
      const heapAtEnd = heapUsed();

      // then its head did not grow with its age, the engine holds no more than after 100 polls,
      expect(sampled.head9999! / sampled.head50!).toBeLessThanOrEqual(1.2);
      expect(heapAtEnd / sampled.heap100!).toBeLessThanOrEqual(1.2);
      // it keeps its latest 10 checkpoints, and its history lists every completion, in order
      expect(await repository.list(id)).toHaveLength(10);
      const history = (await engine.instance(id))!.history.map((entry) => entry.node);
      expect(history).toHaveLength(2 * POLLS + 2);
      expect(history.slice(0, 3)).toEqual(['start', 'ask', 'check']);
      expect(
        history.every((node, index) => index === 0 || node === (index % 2 === 1 ? 'ask' : 'check') || node === 'end'),
      ).toBe(true);
      expect(history.at(-1)).toBe('end');
    } finally {
      await engine.close();
      await repository.close();
    }
    // and the store, its log included, holds at most 4 KiB a poll
    try {
      expect((await store.bytes()) / POLLS).toBeLessThanOrEqual(4096);
    } finally {
      await store.dispose();
    }
  }, 300_000);
});
