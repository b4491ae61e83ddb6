import {
  CheckpointError,
  CheckpointErrorCode,
  ConflictError,
  type PutCheckpoint,
  UnencodableValueError,
} from '@thresher/checkpoint';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openPool } from '../src/driver.js';
import {
  createPostgresRepository,
  MIGRATIONS,
  type PGliteLike,
  type PostgresRepository,
  SCHEMA_VERSION,
} from '../src/index.js';
import {
  adminPool,
  BACKEND,
  closeBackend,
  dropSchema,
  freshSchema,
  NEEDS_SERVER,
  openRepository,
  PG_URL,
} from './backend.js';

const onServer = BACKEND === 'server';
/** A test that needs concurrent connections: skipped on PGlite, saying why in its name. */
const serverIt = (name: string, body: () => Promise<void>) =>
  it.skipIf(!onServer)(onServer ? name : `${name} (skipped: ${NEEDS_SERVER})`, body);

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

function checkpoint(instanceId: string, seq: number, bytes: Uint8Array, note = ''): PutCheckpoint {
  return {
    instanceId,
    seq,
    parentSeq: seq === 1 ? null : seq - 1,
    schema: 1,
    definitionDigest: 'definition-digest',
    digest: `digest-${seq}${note}`,
    bytes,
    meta: {
      status: 'running',
      processId: 'order_process',
      definitionId: 'order-fulfilment',
      businessKey: 'A-1001',
      parentId: null,
      callNodeId: null,
      dueAt: null,
      subscriptions: [],
      endedAt: null,
    },
  };
}

/** Connections of this database waiting on a lock in a statement that touches `schema`. */
async function lockWaiters(schema: string): Promise<number> {
  const [row] = await sql<{ waiting: string }>(
    `SELECT count(*) AS waiting FROM pg_stat_activity
     WHERE datname = current_database() AND wait_event_type = 'Lock' AND position($1 in query) > 0`,
    [schema],
  );
  return Number(row!.waiting);
}

const utf8 = (text: string) => new TextEncoder().encode(text);

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('the call should have been refused'),
    (error: unknown) => error,
  );
}

describe(`createPostgresRepository (on ${onServer ? 'the THRESHER_PG_URL server' : 'PGlite'})`, () => {
  it('should keep documents as BYTEA, so 0x00 and invalid UTF-8 round-trip verbatim', async () => {
    const name = schema();
    const repository = await open(name);
    // 0x00, a lone surrogate's UTF-8 encoding (ED A0 80), and bytes that are no UTF-8 at all: jsonb or
    // text would refuse or alter every one of them.
    const bytes = Uint8Array.of(0x7b, 0x00, 0xed, 0xa0, 0x80, 0xff, 0xfe, 0x00, 0x7d);
    const value = Uint8Array.of(0, 0, 0);

    await repository.put(checkpoint('order-1', 1, bytes));
    await repository.putWrites('order-1', 1, [{ taskId: 'charge', index: 0, value }]);

    const stored = await repository.get('order-1');
    expect([...stored!.bytes]).toEqual([...bytes]);
    expect([...stored!.writes[0]!.value]).toEqual([...value]);
    const columns = await sql<{ table_name: string; column_name: string; data_type: string }>(
      `SELECT table_name, column_name, data_type FROM information_schema.columns
       WHERE table_schema = $1 AND column_name IN ('document', 'value') ORDER BY table_name`,
      [name],
    );
    expect(columns).toEqual([
      { table_name: 'checkpoints', column_name: 'document', data_type: 'bytea' },
      { table_name: 'writes', column_name: 'value', data_type: 'bytea' },
    ]);
    const [row] = await sql<{ length: number }>(
      `SELECT octet_length(document) AS length FROM "${name}".checkpoints WHERE instance_id = 'order-1'`,
    );
    expect(row!.length).toBe(bytes.byteLength);
  });

  it('should refuse text that PostgreSQL cannot keep, before writing anything', async () => {
    const repository = await open(schema());

    const nul = await rejection(repository.put(checkpoint('order\u0000-1', 1, utf8('{}'))));
    const surrogate = await rejection(repository.put(checkpoint('order-\ud800', 1, utf8('{}'))));

    expect(nul).toBeInstanceOf(UnencodableValueError);
    expect((nul as UnencodableValueError).code).toBe(CheckpointErrorCode.Encoding);
    expect((nul as Error).message).toMatch(/instanceId.*U\+0000/);
    expect(surrogate).toBeInstanceOf(UnencodableValueError);
    expect(await repository.instances()).toEqual([]);
    expect(await repository.get('order\u0000-1')).toBeUndefined();
  });

  it('should create the tables, indexes and version record in the schema it is given', async () => {
    const name = schema();
    await open(name);

    const tables = await sql<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`,
      [name],
    );
    expect(tables.map(({ table_name }) => table_name)).toEqual([
      'checkpoints',
      'deployments',
      'instances',
      'jobs',
      'log',
      'messages',
      'projections',
      'readers',
      'schema_migrations',
      'search_rows',
      'subscriptions',
      'writes',
    ]);
    const indexes = await sql<{ indexname: string }>(
      `SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'instances' ORDER BY indexname`,
      [name],
    );
    expect(indexes.map(({ indexname }) => indexname)).toEqual(
      expect.arrayContaining([
        'instances_by_definition',
        'instances_by_parent',
        'instances_by_status',
        'instances_due',
      ]),
    );
    const messageIndexes = await sql<{ indexname: string }>(
      `SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'messages' ORDER BY indexname`,
      [name],
    );
    expect(messageIndexes.map(({ indexname }) => indexname)).toEqual(
      expect.arrayContaining(['messages_by_expiry', 'messages_by_subscription']),
    );
    const versions = await sql<{ version: number }>(`SELECT version FROM "${name}".schema_migrations ORDER BY version`);
    expect(versions.map(({ version }) => version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
  });

  it('should see everything again after a reopen', async () => {
    const name = schema();
    const first = await open(name);
    const one = checkpoint('order-1', 1, utf8('{"seq":1}'));
    const two = checkpoint('order-1', 2, Uint8Array.of(0, 1, 2));
    await first.put(one);
    await first.put(two);
    await first.putWrites('order-1', 2, [{ taskId: 'ship', index: 0, value: utf8('sent') }]);
    const deployment = await first.putDeployment({
      definitionId: 'order-fulfilment',
      digest: 'model-1',
      xml: '<definitions/>',
      deployedAt: 1_700_000_000_000,
    });
    await first.close();

    const again = await open(name);

    expect((await again.list('order-1')).map(({ seq, bytes }) => [seq, [...bytes]])).toEqual([
      [1, [...one.bytes]],
      [2, [0, 1, 2]],
    ]);
    expect((await again.get('order-1'))?.writes.map(({ taskId }) => taskId)).toEqual(['ship']);
    expect(await again.instances()).toEqual([
      {
        ...two.meta,
        instanceId: 'order-1',
        serial: expect.any(Number),
        latestSeq: 2,
        definitionDigest: 'definition-digest',
        rootId: 'order-1',
      },
    ]);
    expect(await again.deployments()).toEqual([deployment]);
    await expect(again.put(checkpoint('order-1', 3, utf8('{}')))).resolves.toBeUndefined();
  });

  it('should upgrade a schema written by an older build in place, keeping its data', async () => {
    const name = schema();
    // Version 1 as an older build left it, with one instance.
    await sql(`CREATE SCHEMA "${name}"`);
    await sql(`CREATE TABLE "${name}".schema_migrations (
      version INTEGER NOT NULL PRIMARY KEY, description TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
    await sql(MIGRATIONS[0]!.sql.replaceAll('{schema}', `"${name}"`));
    await sql(`INSERT INTO "${name}".schema_migrations (version, description) VALUES (1, $1)`, [
      MIGRATIONS[0]!.description,
    ]);
    await sql(`INSERT INTO "${name}".instances VALUES ('order-1', 1, 'dd', 'running', 'p', 'd', NULL, NULL, NULL)`);
    await sql(`INSERT INTO "${name}".checkpoints VALUES ('order-1', 1, NULL, 1, 'dd', 'digest-1', '\\x00ff'::bytea)`);

    const repository = await open(name);

    const versions = await sql<{ version: number }>(`SELECT version FROM "${name}".schema_migrations ORDER BY version`);
    expect(versions.map(({ version }) => version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    expect([...(await repository.get('order-1'))!.bytes]).toEqual([0x00, 0xff]);
    expect(await repository.instances()).toEqual([
      expect.objectContaining({ instanceId: 'order-1', dueAt: null, subscriptions: [] }),
    ]);
    expect(await repository.claim({ owner: 'node-a', ttlMs: 1000, now: 0, limit: 5 })).toHaveLength(1);
    const message = {
      id: 'm-1',
      name: 'payment',
      correlationKey: null,
      variables: Uint8Array.of(0, 255),
      publishedAt: 1,
      expiresAt: 10,
    };
    expect(await repository.putMessage(message)).toBe(true);
    expect(await repository.takeMessage('payment', null, 2, 'order-1')).toEqual(message);
  });

  it('should refuse a schema written by a newer build, naming it and both versions, and leave it untouched', async () => {
    const name = schema();
    const repository = await open(name);
    await repository.put(checkpoint('order-1', 1, utf8('{}')));
    await repository.close();
    await sql(`INSERT INTO "${name}".schema_migrations (version, description) VALUES ($1, 'from the future')`, [
      SCHEMA_VERSION + 1,
    ]);

    const error = await rejection(openRepository(name));

    expect(error).toBeInstanceOf(CheckpointError);
    expect((error as CheckpointError).code).toBe(CheckpointErrorCode.FutureSchema);
    expect((error as Error).message).toContain(`"${name}"`);
    expect((error as Error).message).toContain(`schema version ${SCHEMA_VERSION + 1}`);
    expect((error as Error).message).toContain(`at most ${SCHEMA_VERSION}`);
    const versions = await sql<{ version: number }>(`SELECT version FROM "${name}".schema_migrations ORDER BY version`);
    expect(versions.at(-1)?.version).toBe(SCHEMA_VERSION + 1);
    expect(await sql(`SELECT instance_id FROM "${name}".instances`)).toEqual([{ instance_id: 'order-1' }]);
  });

  it('should order claimed leases, due timers and subscribers by code point, as instances() does', async () => {
    const repository = await open(schema());
    // UTF-16 code units would put 😀 (0xD83D…) before ！ (0xFF01); a locale collation would put a before B.
    const expected = ['B', 'a', '！', '😀'];
    for (const id of ['😀', '！', 'a', 'B']) {
      const first = checkpoint(id, 1, utf8('{}'));
      await repository.put({
        ...first,
        meta: { ...first.meta, dueAt: 5, subscriptions: [{ name: 'paid', key: 'k' }] },
      });
    }

    const leases = await repository.claim({ owner: 'node-a', ttlMs: 1000, now: 0, limit: 10 });

    expect(leases.map(({ instanceId }) => instanceId)).toEqual(expected);
    expect((await repository.dueTimers(10, 10)).map(({ instanceId }) => instanceId)).toEqual(expected);
    expect(await repository.subscriptions('paid', 'k')).toEqual(expected);
  });

  it('should refuse a schema name that is not a plain identifier', async () => {
    const error = await rejection(openRepository('thresher"; DROP TABLE x; --'));

    expect(error).toBeInstanceOf(CheckpointError);
    expect((error as CheckpointError).code).toBe(CheckpointErrorCode.Store);
    expect((error as Error).message).toMatch(/schema name .* is not usable/);
  });

  it('should refuse options that name no database or more than one', async () => {
    const pglite = { query: async () => ({ rows: [] }), exec: async () => [] } satisfies PGliteLike;
    for (const options of [{}, { connectionString: 'postgres://localhost/x', pglite }]) {
      const error = await rejection(createPostgresRepository(options));
      expect((error as CheckpointError).code).toBe(CheckpointErrorCode.Store);
      expect((error as Error).message).toMatch(/exactly one of connectionString, pool or pglite/);
    }
  });

  it('should report an unreachable server as a retryable store error without its password', async () => {
    const error = await rejection(
      createPostgresRepository({ connectionString: 'postgres://app:s3cret@127.0.0.1:1/none', schema: schema() }),
    );

    expect(error).toBeInstanceOf(CheckpointError);
    expect((error as CheckpointError).code).toBe(CheckpointErrorCode.Store);
    expect((error as CheckpointError).retryable).toBe(true);
    expect((error as Error).message).not.toContain('s3cret');
  });

  it('should leave a pool it was given open when it closes', async () => {
    const pool = await adminPool();
    const repository = await createPostgresRepository({ pool, schema: schema() });

    await repository.close();

    expect(await sql<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});

describe('the common put as a named prepared statement', () => {
  it('should prepare on the pool it opens and not on a given pool or PGlite unless told, and refuse what it cannot do', async () => {
    const own = await openPool({ connectionString: 'postgres://localhost/x' });
    await own.pool.end();
    const pool = await adminPool();
    const pglite = { query: async () => ({ rows: [] }), exec: async () => [] } satisfies PGliteLike;

    expect(own.prepared).toBe(true);
    expect((await openPool({ connectionString: 'postgres://localhost/x', preparedStatements: false })).prepared).toBe(
      false,
    );
    expect((await openPool({ pool })).prepared).toBe(false);
    expect((await openPool({ pool, preparedStatements: true })).prepared).toBe(true);
    expect((await openPool({ pglite })).prepared).toBe(false);
    const onPGlite = await rejection(openPool({ pglite, preparedStatements: true }));
    expect((onPGlite as CheckpointError).code).toBe(CheckpointErrorCode.Store);
    expect((onPGlite as Error).message).toMatch(/PGlite runs no named prepared statements/);
    const notBoolean = await rejection(openPool({ pool, preparedStatements: 'yes' as unknown as boolean }));
    expect((notBoolean as CheckpointError).code).toBe(CheckpointErrorCode.Store);
    expect((notBoolean as Error).message).toMatch(/preparedStatements must be true or false, not "yes"/);
    for (const [value, named] of [
      [1n, '1'],
      [Object.create(null), 'an object'],
    ] as const) {
      const refused = await rejection(openPool({ pool, preparedStatements: value as unknown as boolean }));
      expect((refused as CheckpointError).code).toBe(CheckpointErrorCode.Store);
      expect((refused as Error).message).toContain(`must be true or false, not ${named}`);
    }
  });

  serverIt(
    'should prepare each schema its own statements once a connection, beside another on the same pool',
    async () => {
      // One connection, so every put and the inspection below share its session.
      const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
      try {
        const [first, second, third] = [schema(), schema(), schema()];
        const prepared = await createPostgresRepository({ pool, schema: first, preparedStatements: true });
        const alsoPrepared = await createPostgresRepository({ pool, schema: second, preparedStatements: true });
        const unnamed = await createPostgresRepository({ pool, schema: third });
        const named = async () =>
          (
            await pool.query<{ statement: string }>(
              "SELECT statement FROM pg_prepared_statements WHERE name LIKE 'thresher_put_%' ORDER BY prepare_time",
            )
          ).rows.map(({ statement }) => statement.match(/"(\w+)"\.put_checkpoint\(/)?.[1]);

        const lease = await prepared.put({
          ...checkpoint('order-1', 1, utf8('one')),
          claim: { owner: 'node-a', ttlMs: 60_000, now: 0 },
        });
        await prepared.put({
          ...checkpoint('order-1', 2, utf8('two')),
          fence: { owner: 'node-a', token: lease!.token },
        });
        await prepared.put({ ...checkpoint('order-2', 1, utf8('one')), deploymentsSeen: 0 });
        await alsoPrepared.put(checkpoint('order-1', 1, utf8('one')));
        await unnamed.put(checkpoint('order-1', 1, utf8('one')));

        // the first schema's two signatures, then the second's one: each prepared once, none for the third
        expect(await named()).toEqual([first, first, second]);
        expect((await prepared.list('order-1')).map(({ seq }) => seq)).toEqual([1, 2]);
        expect((await alsoPrepared.get('order-1'))?.seq).toBe(1);
        expect((await unnamed.get('order-1'))?.seq).toBe(1);
        for (const repository of [prepared, alsoPrepared, unnamed]) await repository.close();
      } finally {
        await pool.end();
      }
    },
  );
});

describe('the common put as a named prepared statement, across connections', () => {
  serverIt('should prepare it again on the connection that replaces one the server ended', async () => {
    const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
    pool.on('error', () => {});
    try {
      const repository = await createPostgresRepository({ pool, schema: schema(), preparedStatements: true });
      await repository.put(checkpoint('order-1', 1, utf8('one')));
      const [ended] = (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
      await sql('SELECT pg_terminate_backend($1)', [ended!.pid]);
      // The pool drops the connection once its socket closes; the next put opens another.
      for (let waited = 0; pool.totalCount > 0; waited += 10) {
        if (waited > 10_000) expect.fail('the pool never noticed the ended connection');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }

      await repository.put(checkpoint('order-2', 1, utf8('two')));

      const [now] = (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
      expect(now!.pid).not.toBe(ended!.pid);
      const prepared = await pool.query("SELECT 1 FROM pg_prepared_statements WHERE name LIKE 'thresher_put_%'");
      expect(prepared.rows).toHaveLength(1);
      expect((await repository.get('order-2'))?.seq).toBe(1);
      await repository.close();
    } finally {
      await pool.end();
    }
  });
});

describe('concurrency against a real server', () => {
  serverIt('should apply each migration once when many processes open a fresh schema at once', async () => {
    const name = schema();

    const repositories = await Promise.all(Array.from({ length: 8 }, () => open(name)));

    expect(repositories).toHaveLength(8);
    const versions = await sql<{ version: number }>(`SELECT version FROM "${name}".schema_migrations ORDER BY version`);
    expect(versions.map(({ version }) => version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
  });

  serverIt('should let exactly one of two writers on separate connections extend the same parent', async () => {
    const name = schema();
    const [a, b] = [await open(name), await open(name)];
    await a.put(checkpoint('order-1', 1, utf8('{}')));

    for (let round = 2; round < 12; round++) {
      const mine = checkpoint('order-1', round, utf8(`{"by":"a","seq":${round}}`), 'a');
      const theirs = checkpoint('order-1', round, utf8(`{"by":"b","seq":${round}}`), 'b');
      const outcomes = await Promise.allSettled([a.put(mine), b.put(theirs)]);

      expect(outcomes.filter(({ status }) => status === 'fulfilled')).toHaveLength(1);
      const lost = outcomes.find(({ status }) => status === 'rejected') as PromiseRejectedResult;
      expect(lost.reason).toBeInstanceOf(ConflictError);
    }
    expect((await a.list('order-1')).map(({ seq }) => seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  serverIt('should let exactly one of many writers on separate connections create an instance', async () => {
    const name = schema();
    const writers = await Promise.all(Array.from({ length: 6 }, () => open(name)));

    const outcomes = await Promise.allSettled(
      writers.map((writer, i) => writer.put(checkpoint('order-1', 1, utf8(`{"writer":${i}}`), `-${i}`))),
    );

    expect(outcomes.filter(({ status }) => status === 'fulfilled')).toHaveLength(1);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(ConflictError);
    }
    expect(await writers[0]!.list('order-1')).toHaveLength(1);
  });

  serverIt('should make a writer wait while another transaction holds the instance row', async () => {
    const name = schema();
    const repository = await open(name);
    await repository.put(checkpoint('order-1', 1, utf8('{}')));
    const { default: pg } = await import('pg');
    const holder = new pg.Client({ connectionString: PG_URL });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM "${name}".instances WHERE instance_id = 'order-1' FOR UPDATE`);
      let settled = false;
      const put = repository.put(checkpoint('order-1', 2, utf8('{}'))).finally(() => {
        settled = true;
      });
      // Deterministic, not a sleep: wait until the server reports the put's connection waiting on a lock.
      await expect.poll(() => lockWaiters(name), { timeout: 5000 }).toBe(1);
      expect(settled).toBe(false);

      await holder.query('COMMIT');

      await put;
      expect((await repository.get('order-1'))?.seq).toBe(2);
    } finally {
      await holder.end();
    }
  });

  serverIt('should never hand one instance to two nodes claiming at once', async () => {
    const name = schema();
    const seed = await open(name);
    const ids = Array.from({ length: 60 }, (_, i) => `order-${String(i).padStart(2, '0')}`);
    for (const id of ids) await seed.put(checkpoint(id, 1, utf8('{}')));
    const nodes = await Promise.all(Array.from({ length: 5 }, () => open(name)));

    const rounds = await Promise.all(
      nodes.map((node, i) => node.claim({ owner: `node-${i}`, ttlMs: 60_000, now: 1_000, limit: 20 })),
    );

    const claimed = rounds.flat().map(({ instanceId }) => instanceId);
    expect(new Set(claimed).size).toBe(claimed.length);
    expect(claimed.sort()).toEqual(ids);
    const tokens = rounds.flat().map(({ token }) => token);
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  serverIt('should pass over an instance whose row another transaction holds, without waiting', async () => {
    const name = schema();
    const repository = await open(name);
    for (const id of ['order-a', 'order-b']) await repository.put(checkpoint(id, 1, utf8('{}')));
    const { default: pg } = await import('pg');
    const holder = new pg.Client({ connectionString: PG_URL });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM "${name}".instances WHERE instance_id = 'order-a' FOR UPDATE`);

      const leases = await repository.claim({ owner: 'node-1', ttlMs: 1000, now: 0, limit: 2 });

      expect(leases.map(({ instanceId }) => instanceId)).toEqual(['order-b']);
      await holder.query('ROLLBACK');
      const later = await repository.claim({ owner: 'node-1', ttlMs: 1000, now: 0, limit: 2 });
      expect(later.map(({ instanceId }) => instanceId)).toEqual(['order-a']);
    } finally {
      await holder.end();
    }
  });
});

describe('history across transactions', () => {
  serverIt(
    'should hold back a log entry committed while an older transaction runs until that one ends, so no reader passes over what it commits',
    async () => {
      const name = schema();
      const repository = await open(name);
      const logged = (instanceId: string, byte: number) => ({
        ...checkpoint(instanceId, 1, new Uint8Array([byte])),
        log: new Uint8Array([byte]),
      });
      await repository.put(logged('order-a', 1));
      const [first] = await repository.history();
      // An older writer: it has its transaction id and has not committed yet.
      const older = new pg.Client({ connectionString: PG_URL });
      await older.connect();
      try {
        await older.query('BEGIN');
        await older.query('SELECT pg_current_xact_id()');
        await repository.put(logged('order-b', 2));

        expect(await repository.history({ after: first!.position })).toEqual([]);

        await older.query(`INSERT INTO "${name}".instances (instance_id, latest_seq, definition_digest, status,
          process_id, definition_id, root_id) VALUES ('order-c', 1, 'dd', 'completed', 'p', 'd', 'order-c')`);
        await older.query(`INSERT INTO "${name}".checkpoints (instance_id, seq, parent_seq, schema, definition_digest,
          digest, document) VALUES ('order-c', 1, NULL, 1, 'dd', 'digest-c', '\\x03'::bytea)`);
        await older.query(`INSERT INTO "${name}".log (instance_id, seq, entry) VALUES ('order-c', 1, '\\x03'::bytea)`);
        await older.query('COMMIT');
      } finally {
        await older.end();
      }

      // The older transaction's entry comes first: it was given its position before order-b's.
      const rest = await repository.history({ after: first!.position });
      expect(rest.map(({ instanceId }) => instanceId)).toEqual(['order-c', 'order-b']);
    },
  );
});

describe('the log in position order', () => {
  it('should order entries by transaction id as a number, not as text: transaction 9 before transaction 10', async () => {
    // given two entries of transactions 10 and 9 (long ended: below every snapshot's xmin)
    const name = schema();
    const repository = await open(name);
    await repository.put(checkpoint('order-a', 1, utf8('{}')));
    for (const [seq, tx] of [
      [1, 10],
      [2, 9],
    ]) {
      await sql(
        `INSERT INTO "${name}".log (instance_id, seq, tx, entry) VALUES ('order-a', $1, $2::text::xid8, '\\x00')`,
        [seq, tx],
      );
    }

    // when the log is read, whole and after the first entry
    const entries = await repository.history();
    const rest = await repository.history({ after: entries[0]!.position });

    // then transaction 9's entry comes first
    expect(entries.map(({ seq }) => seq)).toEqual([2, 1]);
    expect(rest.map(({ seq }) => seq)).toEqual([1]);
  });
});
