import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  type CheckpointError,
  type PutCheckpoint,
  StaleDeploymentsError,
  StoreUpgradedError,
} from '@thresher/checkpoint';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, type PostgresRepository, SCHEMA_VERSION } from '../src/index.js';
import { selectInstancesSql } from '../src/statements.js';
import {
  adminPool,
  BACKEND,
  closeBackend,
  dropSchema,
  freshSchema,
  NEEDS_SERVER,
  openCountedRepository,
  openRepository,
  PG_URL,
} from './backend.js';

const onServer = BACKEND === 'server';
/** The built package: child processes run plain Node, which cannot load the TypeScript sources. */
const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const NEEDS_BUILD = 'needs `pnpm run build`: the child process runs the built package';

/** A test that needs what `why` names: skipped without it, saying why in its name. */
const onlyIf = (ready: boolean, why: string) => (name: string, body: () => Promise<void>) =>
  it.skipIf(!ready)(ready ? name : `${name} (skipped: ${why})`, body);
const serverIt = onlyIf(onServer, NEEDS_SERVER);
const builtServerIt = onlyIf(onServer && existsSync(DIST), onServer ? NEEDS_BUILD : NEEDS_SERVER);

const opened: PostgresRepository[] = [];
const schemas: string[] = [];

afterEach(async () => {
  for (const repository of opened.splice(0)) await repository.close();
  for (const schema of schemas.splice(0)) await dropSchema(schema);
});
afterAll(closeBackend);

function schema(): string {
  const name = freshSchema();
  schemas.push(name);
  return name;
}

async function open(name: string): Promise<PostgresRepository> {
  const repository = await openRepository(name);
  opened.push(repository);
  return repository;
}

async function sql<TRow>(text: string, values?: unknown[]): Promise<TRow[]> {
  return (await (await adminPool()).query<TRow>(text, values)).rows;
}

/** A fresh schema migrated to `version` as a build of that version left it, its steps recorded. */
async function schemaAt(version: number): Promise<string> {
  const name = schema();
  await sql(`CREATE SCHEMA "${name}"`);
  await sql(`CREATE TABLE "${name}".schema_migrations (
    version INTEGER NOT NULL PRIMARY KEY, description TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
  for (const [i, migration] of MIGRATIONS.slice(0, version).entries()) {
    await sql(migration.sql.replaceAll('{schema}', `"${name}"`));
    await sql(`INSERT INTO "${name}".schema_migrations (version, description) VALUES ($1, $2)`, [
      i + 1,
      migration.description,
    ]);
  }
  return name;
}

const utf8 = (text: string) => new TextEncoder().encode(text);

function checkpoint(instanceId: string, seq: number, parentId: string | null = null): PutCheckpoint {
  return {
    instanceId,
    seq,
    parentSeq: seq === 1 ? null : seq - 1,
    schema: 1,
    definitionDigest: 'definition-digest',
    digest: `digest-${instanceId}-${seq}`,
    bytes: utf8(`${instanceId}:${seq}`),
    meta: {
      status: 'running',
      processId: 'order_process',
      definitionId: 'order-fulfilment',
      businessKey: null,
      parentId,
      callNodeId: parentId === null ? null : 'call',
      dueAt: null,
      subscriptions: [],
    },
  };
}

/** What a newer build's migration does, as `migrate` does it: under the migration lock, a change and its version. */
const NEWER_MIGRATION = (name: string) => [
  'BEGIN',
  `SELECT pg_advisory_xact_lock(hashtextextended('thresher.migrate:${name}', 0))`,
  `CREATE TABLE "${name}".from_a_newer_build (id INTEGER PRIMARY KEY)`,
  `INSERT INTO "${name}".schema_migrations (version, description) VALUES (${SCHEMA_VERSION + 1}, 'a newer build')`,
];

async function migrateAsANewerBuild(name: string): Promise<void> {
  for (const statement of [...NEWER_MIGRATION(name), 'COMMIT']) await sql(statement);
}

function expectUpgraded(error: unknown, name: string, label: string): void {
  expect(error, label).toBeInstanceOf(StoreUpgradedError);
  expect((error as CheckpointError).code, label).toBe('THRESHER_STORE_UPGRADED');
  expect((error as CheckpointError).retryable, label).toBe(false);
  expect((error as Error).message, label).toContain(`"${name}"`);
  expect((error as Error).message, label).toContain(`migrated to schema ${SCHEMA_VERSION + 1}`);
  expect((error as Error).message, label).toContain(`knows schema ${SCHEMA_VERSION}`);
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('the write should have been refused'),
    (error: unknown) => error,
  );

describe(`schema version 4 on ${onServer ? 'the THRESHER_PG_URL server' : 'PGlite'}: the root of every call tree`, () => {
  it('should back-fill rootId when it upgrades a version-3 schema, walking trees down from their roots', async () => {
    const name = await schemaAt(3);
    // Children before their parents, and a subtree whose root was deleted before the upgrade.
    for (const [id, parent] of [
      ['grandchild', 'child'],
      ['child', 'root'],
      ['root', null],
      ['orphan', 'deleted-root'],
      ['orphan-child', 'orphan'],
      ['solo', null],
    ] as const) {
      await sql(
        `INSERT INTO "${name}".instances (instance_id, latest_seq, definition_digest, status, process_id,
          definition_id, parent_id, call_node_id) VALUES ($1, 1, 'dd', 'running', 'p', 'd', $2, $3)`,
        [id, parent, parent === null ? null : 'call'],
      );
    }

    const repository = await open(name);

    const summaries = await repository.instances();
    expect(Object.fromEntries(summaries.map(({ instanceId, rootId }) => [instanceId, rootId]))).toEqual({
      child: 'root',
      grandchild: 'root',
      orphan: 'deleted-root',
      'orphan-child': 'deleted-root',
      root: 'root',
      solo: 'solo',
    });
    const [column] = await sql<{ is_nullable: string }>(
      `SELECT is_nullable FROM information_schema.columns
       WHERE table_schema = $1 AND table_name = 'instances' AND column_name = 'root_id'`,
      [name],
    );
    expect(column?.is_nullable).toBe('NO');
    const indexes = await sql<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE schemaname = $1`, [name]);
    expect(indexes.map(({ indexname }) => indexname)).toContain('instances_by_root');
    await repository.put(checkpoint('great-grandchild', 1, 'grandchild'));
    expect((await repository.instances({ rootId: 'root' })).map(({ instanceId }) => instanceId)).toEqual([
      'child',
      'grandchild',
      'great-grandchild',
      'root',
    ]);
  });
});

describe(`schema version 5 on ${onServer ? 'the THRESHER_PG_URL server' : 'PGlite'}: put in one statement`, () => {
  it('should add put_checkpoint when it upgrades a version-4 schema, and store the next put of a stored instance with it', async () => {
    const name = await schemaAt(4);
    await sql(
      `INSERT INTO "${name}".instances (instance_id, latest_seq, definition_digest, status, process_id,
        definition_id, root_id, lease_owner, lease_token, lease_expires_at)
       VALUES ('order-1', 1, 'dd', 'running', 'p', 'd', 'order-1', 'node-a', nextval('"${name}".lease_tokens'), 10)`,
    );
    await sql(`INSERT INTO "${name}".checkpoints VALUES ('order-1', 1, NULL, 1, 'dd', 'digest-1', '\\x00ff'::bytea)`);

    const counted = await openCountedRepository(name);
    try {
      const { repository, statements } = counted;
      const [held] = await sql<{ token: string | number }>(`SELECT lease_token AS token FROM "${name}".instances`);
      statements.length = 0;
      await repository.put({ ...checkpoint('order-1', 2), fence: { owner: 'node-a', token: Number(held!.token) } });

      expect(SCHEMA_VERSION).toBe(14);
      expect(await sql(`SELECT version, description FROM "${name}".schema_migrations WHERE version = 5`)).toEqual([
        { version: 5, description: MIGRATIONS[4]!.description },
      ]);
      expect(statements).toEqual([expect.stringContaining(`"${name}".put_checkpoint(`)]);
      expect((await repository.list('order-1')).map(({ seq, bytes }) => [seq, [...bytes]])).toEqual([
        [1, [0x00, 0xff]],
        [2, [...utf8('order-1:2')]],
      ]);
    } finally {
      await counted.close();
    }
  });

  it('should refuse a put in its one statement once a newer build recorded its version, writing nothing', async () => {
    const name = schema();
    const counted = await openCountedRepository(name);
    try {
      const { repository, statements } = counted;
      await repository.put(checkpoint('order-1', 1));
      await migrateAsANewerBuild(name);
      statements.length = 0;

      const created = await refusal(repository.put(checkpoint('order-2', 1)));
      const advanced = await refusal(repository.put(checkpoint('order-1', 2)));

      expectUpgraded(created, name, 'the first put of an instance');
      expectUpgraded(advanced, name, 'the next put of an instance');
      expect(statements).toEqual([
        expect.stringContaining(`"${name}".put_checkpoint(`),
        expect.stringContaining(`"${name}".put_checkpoint(`),
      ]);
      expect(await sql(`SELECT instance_id, seq FROM "${name}".checkpoints`)).toEqual([
        { instance_id: 'order-1', seq: onServer ? '1' : 1 },
      ]);
    } finally {
      await counted.close();
    }
  });
});

describe('schema version 10 on the THRESHER_PG_URL server: a lone release in one statement', () => {
  it('should release alone in one release_leases statement, and refuse it once a newer build recorded its version, releasing nothing', async () => {
    const name = schema();
    const counted = await openCountedRepository(name);
    try {
      const { repository, statements } = counted;
      for (const id of ['order-1', 'order-2']) await repository.put(checkpoint(id, 1));
      const [first, second] = await repository.claim({ owner: 'node-a', ttlMs: 60_000, now: 0, limit: 2 });
      statements.length = 0;

      await repository.release(first!);
      expect(statements).toEqual([expect.stringContaining(`"${name}".release_leases(`)]);
      expect(await repository.lease('order-1')).toBeUndefined();

      await migrateAsANewerBuild(name);
      expectUpgraded(await refusal(repository.release(second!)), name, 'a release');
      expect(await repository.lease('order-2')).toEqual(second);
    } finally {
      await counted.close();
    }
  });
});

describe('a running process while a newer build migrates the schema', () => {
  serverIt('should make a write wait while a newer build migrates, then refuse it', async () => {
    const name = schema();
    const repository = await open(name);
    await repository.put(checkpoint('order-1', 1));
    const { default: pg } = await import('pg');
    const migrator = new pg.Client({ connectionString: PG_URL });
    await migrator.connect();
    try {
      for (const statement of NEWER_MIGRATION(name)) await migrator.query(statement);
      let settled = false;
      const put = refusal(repository.put(checkpoint('order-1', 2))).finally(() => {
        settled = true;
      });
      // Deterministic, not a sleep: wait until the server reports the put waiting on the migration lock.
      const waiting = async () =>
        Number(
          (
            await sql<{ waiting: string }>(
              `SELECT count(*) AS waiting FROM pg_stat_activity
                 WHERE datname = current_database() AND wait_event = 'advisory' AND position($1 in query) > 0`,
              [name],
            )
          )[0]!.waiting,
        );
      await expect.poll(waiting, { timeout: 5000 }).toBe(1);
      expect(settled).toBe(false);

      await migrator.query('COMMIT');

      expectUpgraded(await put, name, 'put');
      expect((await repository.get('order-1'))?.seq).toBe(1);
    } finally {
      await migrator.end();
    }
  });
});

/**
 * A process of this build holding the schema open: it opens the store and writes seq 1, says ready, waits for
 * the go line on stdin, then tries seq 2 and reports how that went as one JSON line.
 */
const WRITER = `
const [dist, connectionString, schema] = process.argv.slice(2);
const { createPostgresRepository } = await import(dist);
const repository = await createPostgresRepository({ connectionString, schema });
const meta = { status: 'running', processId: 'p', definitionId: 'd', businessKey: null, parentId: null,
  callNodeId: null, dueAt: null, subscriptions: [] };
const put = (seq) => repository.put({ instanceId: 'order-1', seq, parentSeq: seq === 1 ? null : seq - 1, schema: 1,
  definitionDigest: 'd', digest: 'digest-' + seq, bytes: new TextEncoder().encode(String(seq)), meta });
await put(1);
process.stdout.write('ready\\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
process.stdin.destroy();
const outcome = await put(2).then(
  () => ({ written: true }),
  (error) => ({ written: false, name: error.name, code: error.code, message: error.message }),
);
await repository.close();
process.stdout.write(JSON.stringify(outcome) + '\\n');
`;

describe('a process of this build across an upgrade by another process', () => {
  builtServerIt(
    'should refuse the running process its next write once another process migrated the schema',
    async () => {
      const name = schema();
      const directory = mkdtempSync(join(tmpdir(), 'thresher-pg-upgrades-'));
      try {
        const script = join(directory, 'writer.mjs');
        writeFileSync(script, WRITER);
        const child = spawn(process.execPath, [script, pathToFileURL(DIST).href, PG_URL!, name]);
        let stdout = '';
        let stderr = '';
        child.stderr.on('data', (chunk) => {
          stderr += chunk;
        });
        const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
        await new Promise<void>((resolve) => {
          child.stdout.on('data', (chunk) => {
            stdout += chunk;
            if (stdout.startsWith('ready\n')) resolve();
          });
          child.on('close', () => resolve());
        });
        expect(stdout, stderr).toBe('ready\n');

        await migrateAsANewerBuild(name);
        child.stdin.end('go\n');

        expect(await exited, stderr).toBe(0);
        const outcome = JSON.parse(stdout.slice('ready\n'.length));
        expect(outcome).toMatchObject({ written: false, name: 'StoreUpgradedError', code: 'THRESHER_STORE_UPGRADED' });
        expect(outcome.message).toContain(`"${name}"`);
        expect(outcome.message).toContain(`migrated to schema ${SCHEMA_VERSION + 1}`);
        expect(await sql(`SELECT seq FROM "${name}".checkpoints WHERE instance_id = 'order-1'`)).toEqual([
          { seq: '1' },
        ]);
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    },
  );
});

describe(`schema version 6 on ${onServer ? 'the THRESHER_PG_URL server' : 'PGlite'}: smaller status and parent indexes`, () => {
  it('should upgrade a version-5 schema and list every status and parent as before, completed instances and roots left out of their indexes', async () => {
    // given a version-5 schema holding a root of each status and a child
    const name = await schemaAt(5);
    for (const [id, status, parent] of [
      ['a', 'completed', null],
      ['b', 'running', null],
      ['c', 'terminated', null],
      ['d', 'completed', 'b'],
      ['e', 'running', 'b'],
    ]) {
      await sql(
        `INSERT INTO "${name}".instances (instance_id, latest_seq, definition_digest, status, process_id,
          definition_id, parent_id, root_id) VALUES ($1, 1, 'dd', $2, 'p', 'd', $3, COALESCE($3, $1))`,
        [id, status, parent],
      );
    }

    // when a build of schema 6 opens it
    const repository = await open(name);
    const ids = (summaries: { instanceId: string }[]) => summaries.map(({ instanceId }) => instanceId);

    // then each status and parent lists what it did, through indexes that leave the rest out
    expect(ids(await repository.instances({ status: 'completed' }))).toEqual(['a', 'd']);
    expect(ids(await repository.instances({ status: 'running' }))).toEqual(['b', 'e']);
    expect(ids(await repository.instances({ status: 'terminated' }))).toEqual(['c']);
    expect(ids(await repository.instances({ parentId: 'b' }))).toEqual(['d', 'e']);
    expect(ids(await repository.instances({ rootId: 'b' }))).toEqual(['b', 'd', 'e']);
    expect(ids(await repository.instances({ rootId: 'a' }))).toEqual(['a']);
    expect(ids(await repository.instances({ rootId: 'd' }))).toEqual([]);
    const indexes = await sql<{ indexname: string; indexdef: string }>(
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1
        AND indexname IN ('instances_by_status', 'instances_by_parent', 'instances_by_root') ORDER BY indexname`,
      [name],
    );
    expect(indexes.map(({ indexname, indexdef }) => [indexname, indexdef.replace(/^.* WHERE /, '')])).toEqual([
      ['instances_by_parent', '(parent_id IS NOT NULL)'],
      ['instances_by_root', '(parent_id IS NOT NULL)'],
      ['instances_by_status', "(status <> 'completed'::text)"],
    ]);
  });

  it.each([
    ['running instances', { status: 'running' }, 'instances_by_status'],
    ['a call tree', { rootId: 'root' }, 'instances_by_root'],
  ] as const)('should plan a listing of %s on its partial index', async (_, filter, index) => {
    const name = schema();
    await open(name);
    const { text, values } = selectInstancesSql(`"${name}"`, {
      serial: undefined,
      ids: undefined,
      roots: false,
      children: false,
      parentId: undefined,
      processId: undefined,
      businessKey: undefined,
      status: undefined,
      definition: undefined,
      after: undefined,
      limit: 10,
      rootId: undefined,
      before: undefined,
      desc: false,
      idsOnly: false,
      ...filter,
    });
    // a generic plan (as a prepared statement may get): the partial index still serves it
    const admin = await adminPool();
    const client = await admin.connect();
    try {
      await client.query('SET enable_seqscan = off');
      await client.query("SET plan_cache_mode = 'force_generic_plan'");
      await client.query(`PREPARE listing AS ${text}`);
      const plan = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN EXECUTE listing(${values.map((value) => (typeof value === 'string' ? `'${value}'` : value)).join(', ')})`,
      );
      expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n')).toContain(index);
      await client.query('DEALLOCATE listing');
      await client.query('RESET enable_seqscan');
      await client.query('RESET plan_cache_mode');
    } finally {
      client.release();
    }
  });
});

describe(`schema version 7 on ${onServer ? 'the THRESHER_PG_URL server' : 'PGlite'}: the deployments a start chose among`, () => {
  it("should upgrade a version-6 schema holding deployments and check a first put against them, keeping version 5's signature", async () => {
    // given a version-6 schema with two deployments
    const name = await schemaAt(6);
    for (const [ord, digest] of [
      [1, 'digest-1'],
      [2, 'digest-2'],
    ] as const) {
      await sql(
        `INSERT INTO "${name}".deployments (definition_id, digest, version, xml, deployed_at) VALUES ('d', $1, $2, '<x/>', 1)`,
        [digest, ord],
      );
    }

    // when a build of schema 7 opens it and puts first checkpoints chosen among one and among two
    const repository = await open(name);
    const stale = await refusal(repository.put({ ...checkpoint('order-1', 1), deploymentsSeen: 1 }));
    await repository.put({ ...checkpoint('order-2', 1), deploymentsSeen: 2 });
    await repository.put(checkpoint('order-3', 1));

    // then the first is refused and the others stored; both signatures of the function are there
    expect(stale).toBeInstanceOf(StaleDeploymentsError);
    expect((await repository.instances()).map(({ instanceId }) => instanceId)).toEqual(['order-2', 'order-3']);
    const signatures = await sql<{ args: number }>(
      `SELECT pronargs AS args FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = $1 AND p.proname = 'put_checkpoint' ORDER BY pronargs`,
      [name],
    );
    // Schema 11 adds its own pair (the end time, the log entry and keep_last); the older ones stay for older builds.
    expect(signatures.map(({ args }) => args)).toEqual([23, 24, 26, 27]);
  });
});

describe(`schema version 8 on ${onServer ? 'the THRESHER_PG_URL server' : 'PGlite'}: put_checkpoint planned once`, () => {
  it('should upgrade a version-7 schema and put through both signatures as before, each now a whole body', async () => {
    // given a version-7 schema with one deployment and an instance its function stored
    const name = await schemaAt(7);
    await sql(
      `INSERT INTO "${name}".deployments (definition_id, digest, version, xml, deployed_at) VALUES ('d', 'digest-1', 1, '<x/>', 1)`,
    );
    await sql(
      `SELECT outcome FROM "${name}".put_checkpoint('old-1', 1, NULL, 1, 'dd', 'digest-old', '\\x00'::bytea, 'running',
        'p', 'd', NULL, NULL, NULL, NULL, '{}', '{}', NULL, NULL, false, NULL, NULL, $1, 7)`,
      [`thresher.migrate:${name}`],
    );

    // when this build opens it, starts an instance holding its lease, links a child, puts one stale start
    // and ends the instance with a release
    const repository = await open(name);
    const claim = { owner: 'node-a', ttlMs: 60_000, now: 0 };
    const lease = await repository.put({ ...checkpoint('order-1', 1), deploymentsSeen: 1, claim });
    await repository.put({ ...checkpoint('child-1', 1, 'order-1'), deploymentsSeen: 1 });
    await repository.put(checkpoint('old-1', 2));
    const stale = await refusal(repository.put({ ...checkpoint('order-2', 1), deploymentsSeen: 0 }));
    await repository.put({
      ...checkpoint('order-1', 2),
      fence: { owner: 'node-a', token: lease!.token },
      release: true,
    });

    // then every put is stored as version 7 stored it, and version 7's signature calls no other
    expect(stale).toBeInstanceOf(StaleDeploymentsError);
    expect(lease?.owner).toBe('node-a');
    expect(await repository.lease('order-1')).toBeUndefined();
    expect((await repository.instances({ rootId: 'order-1' })).map(({ instanceId }) => instanceId)).toEqual([
      'child-1',
      'order-1',
    ]);
    expect((await repository.list('old-1')).map(({ seq }) => seq)).toEqual([1, 2]);
    expect((await repository.list('order-1')).map(({ seq }) => seq)).toEqual([1, 2]);
    const bodies = await sql<{ args: number; nested: boolean }>(
      `SELECT pronargs AS args, prosrc LIKE '%put_checkpoint(%' AS nested FROM pg_proc p
        JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 AND p.proname = 'put_checkpoint'
        ORDER BY pronargs`,
      [name],
    );
    expect(bodies).toEqual([
      { args: 23, nested: false },
      { args: 24, nested: false },
      { args: 26, nested: false },
      { args: 27, nested: false },
    ]);
    expect(await sql(`SELECT version, description FROM "${name}".schema_migrations WHERE version = 8`)).toEqual([
      { version: 8, description: MIGRATIONS[7]!.description },
    ]);
  });
});

describe(`schema version 12 on ${onServer ? 'the THRESHER_PG_URL server' : 'PGlite'}: instance serials`, () => {
  it("should number a version-11 schema's instances in id order, and a new one past them all", async () => {
    // given a version-11 schema holding three instances, one of them a called child
    const name = await schemaAt(11);
    for (const [id, parent, root] of [
      ['order-b', null, 'order-b'],
      ['order-a', null, 'order-a'],
      ['order-c', 'order-a', 'order-a'],
    ] as const) {
      await sql(
        `INSERT INTO "${name}".instances (instance_id, latest_seq, definition_digest, status, process_id,
          definition_id, parent_id, root_id) VALUES ($1, 1, 'dd', 'running', 'p', 'd', $2, $3)`,
        [id, parent, root],
      );
    }

    // when this build opens it, an instance is created, one deleted and another created
    const repository = await open(name);
    await repository.put(checkpoint('order-d', 1));
    await repository.delete('order-d');
    await repository.put(checkpoint('order-e', 1));

    // then the old ones are numbered in id order and the new ones after them, none twice
    expect((await repository.instances()).map(({ instanceId, serial }) => [instanceId, serial])).toEqual([
      ['order-a', 1],
      ['order-b', 2],
      ['order-c', 3],
      ['order-e', 5],
    ]);
    expect((await repository.instances({ serial: 2 })).map(({ instanceId }) => instanceId)).toEqual(['order-b']);
  });
});
