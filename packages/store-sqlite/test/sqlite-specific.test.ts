import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CheckpointError, ConflictError, type PutCheckpoint, UnencodableValueError } from '@thresher/checkpoint';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inIdsOrder, type PlacedRow } from '../src/checkpoints.js';
import { openDatabase } from '../src/driver.js';
import {
  createSqliteRepository,
  MIGRATIONS,
  SCHEMA_VERSION,
  type SqliteRepository,
  type SqliteRepositoryOptions,
} from '../src/index.js';
import { CREATE_TOKEN_BLOCK } from '../src/leases.js';
import { SQL } from '../src/statements.js';

let directory: string;
const opened: SqliteRepository[] = [];

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'thresher-sqlite-'));
});

afterEach(async () => {
  for (const repository of opened.splice(0)) await repository.close();
  rmSync(directory, { recursive: true, force: true });
});

function open(path = join(directory, 'thresher.db'), synchronous?: 'FULL' | 'NORMAL'): SqliteRepository {
  const repository = createSqliteRepository(synchronous === undefined ? { path } : { path, synchronous });
  opened.push(repository);
  return repository;
}

/** A raw better-sqlite3 connection to inspect or tamper with the file behind the repository's back. */
function raw(path: string): Database.Database {
  return new Database(path);
}

function checkpoint(instanceId: string, seq: number, bytes: Uint8Array, parentSeq = seq === 1 ? null : seq - 1) {
  return {
    instanceId,
    seq,
    parentSeq,
    schema: 1,
    definitionDigest: 'definition-digest',
    digest: `digest-${seq}`,
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
    },
  } satisfies PutCheckpoint;
}

const utf8 = (text: string) => new TextEncoder().encode(text);

describe('createSqliteRepository', () => {
  it('should open the file in WAL mode', async () => {
    const repository = open();

    const db = raw(repository.path);
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
    }
  });

  it('should let the WAL grow to 10,000 pages before a commit copies it into the database file', async () => {
    const repository = open();
    // Each put dirties several pages (the instance row, its indexes, the checkpoint): ~2,000 frames in all.
    const document = new Uint8Array(3000).fill(120);
    for (let i = 0; i < 400; i++) await repository.put(checkpoint(`order-${String(i).padStart(3, '0')}`, 1, document));

    // At SQLite's default of 1,000 pages the log would have been copied and begun again at ~1,000 frames.
    const frames = (statSync(`${repository.path}-wal`).size - 32) / (4096 + 24);
    expect(frames).toBeGreaterThan(1500);
  });

  it('should apply every migration to a fresh file and record the schema version', async () => {
    const repository = open();

    const db = raw(repository.path);
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      // The planner's statistics tables (sqlite_stat1, and sqlite_stat4 where the build has it) aside.
      const tables = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_stat%' ORDER BY name")
        .pluck()
        .all();
      expect(tables).toEqual([
        'deployments',
        'instances',
        'jobs',
        'messages',
        'projections',
        'readers',
        'search_rows',
        'sequences',
        'steps',
        'subscriptions',
        'writes',
      ]);
      // The search rows' statistics are written, not measured, so the planner seeks rather than scans.
      const stats = db.prepare("SELECT idx FROM sqlite_stat1 WHERE tbl = 'search_rows' ORDER BY idx").pluck().all();
      expect(stats).toEqual(['search_rows', 'search_rows_by_instance', 'search_rows_by_name', 'search_rows_by_state']);
    } finally {
      db.close();
    }
  });

  it('should keep everything readable after close and reopen', async () => {
    const path = join(directory, 'thresher.db');
    const first = open(path);
    await first.put(checkpoint('order-1', 1, utf8('one')));
    await first.put(checkpoint('order-1', 2, utf8('two')));
    await first.putWrites('order-1', 2, [{ taskId: 'charge', index: 0, value: Uint8Array.of(0, 1) }]);
    const deployment = await first.putDeployment({
      definitionId: 'order-fulfilment',
      digest: 'model-1',
      xml: '<definitions/>',
      deployedAt: 1,
    });
    await first.close();

    const reopened = open(path);

    expect((await reopened.list('order-1')).map(({ seq, bytes }) => [seq, Array.from(bytes)])).toEqual([
      [1, Array.from(utf8('one'))],
      [2, Array.from(utf8('two'))],
    ]);
    expect((await reopened.get('order-1'))?.writes).toEqual([
      { taskId: 'charge', index: 0, value: Uint8Array.of(0, 1) },
    ]);
    expect((await reopened.instances()).map(({ instanceId, latestSeq }) => [instanceId, latestSeq])).toEqual([
      ['order-1', 2],
    ]);
    expect(await reopened.deployments()).toEqual([deployment]);
    await reopened.put(checkpoint('order-1', 3, utf8('three')));
    expect((await reopened.get('order-1'))?.seq).toBe(3);
  });

  it('should upgrade a version-1 file on open, keeping its data and indexing it for timers, leases and messages', async () => {
    const path = join(directory, 'v1.db');
    const db = raw(path);
    db.exec(MIGRATIONS[0]!.sql);
    db.pragma('user_version = 1');
    db.prepare(
      `INSERT INTO instances (instance_id, latest_seq, definition_digest, status, process_id, definition_id,
        business_key, parent_id, call_node_id) VALUES ('order-1', 1, 'dd', 'running', 'p', 'd', 'A-1', NULL, NULL)`,
    ).run();
    db.prepare(
      `INSERT INTO checkpoints (instance_id, seq, parent_seq, schema, definition_digest, digest, document)
        VALUES ('order-1', 1, NULL, 1, 'dd', 'digest-1', ?)`,
    ).run(Buffer.from('one'));
    db.prepare(
      "INSERT INTO writes (instance_id, seq, task_id, idx, ord, value) VALUES ('order-1', 1, 'charge', 0, 0, ?)",
    ).run(Buffer.from('paid'));
    db.close();

    const repository = open(path);

    const after = raw(path);
    try {
      expect(after.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    } finally {
      after.close();
    }
    expect(SCHEMA_VERSION).toBe(13);
    expect(await repository.get('order-1')).toEqual({
      instanceId: 'order-1',
      seq: 1,
      parentSeq: null,
      schema: 1,
      definitionDigest: 'dd',
      digest: 'digest-1',
      bytes: utf8('one'),
      writes: [{ taskId: 'charge', index: 0, value: utf8('paid') }],
    });
    expect(await repository.instances()).toEqual([
      {
        instanceId: 'order-1',
        latestSeq: 1,
        definitionDigest: 'dd',
        status: 'running',
        processId: 'p',
        definitionId: 'd',
        businessKey: 'A-1',
        parentId: null,
        callNodeId: null,
        dueAt: null,
        subscriptions: [],
        endedAt: null,
        rootId: 'order-1',
        serial: expect.any(Number),
      },
    ]);
    const [lease] = await repository.claim({ owner: 'node-a', ttlMs: 1000, now: 0, limit: 10 });
    expect(lease).toMatchObject({ instanceId: 'order-1', token: 1 });
    const next = checkpoint('order-1', 2, utf8('two'));
    await repository.put({
      ...next,
      meta: { ...next.meta, dueAt: 5, subscriptions: [{ name: 'payment', key: 'A-1' }] },
      fence: { owner: 'node-a', token: 1 },
    });
    expect(await repository.dueTimers(5, 10)).toEqual([{ instanceId: 'order-1', dueAt: 5 }]);
    expect(await repository.subscriptions('payment', 'A-1')).toEqual(['order-1']);
    const message = {
      id: 'm-1',
      name: 'payment',
      correlationKey: 'A-1',
      variables: utf8('{}'),
      publishedAt: 1,
      expiresAt: 10,
    };
    expect(await repository.putMessage(message)).toBe(true);
    expect(await repository.takeMessage('payment', 'A-1', 2, 'order-1')).toEqual(message);
  });

  it('should serve due timers, subscriptions and claims from their indexes', async () => {
    const repository = open();
    await repository.put(checkpoint('order-1', 1, utf8('one')));

    const db = raw(repository.path);
    try {
      const plan = (sql: string, ...params: unknown[]) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[])
          .map(({ detail }) => detail)
          .join('; ');
      // In index order: no temporary B-tree sorts the due timers.
      expect(plan(SQL.selectDueTimers, 1, 10)).toMatch(
        /^SEARCH instances USING (COVERING )?INDEX instances_due \(status=\? AND [^;]*\)$/,
      );
      expect(plan(SQL.selectSubscribers, 'payment', 'A-1')).toMatch(
        /SEARCH s USING (COVERING )?INDEX subscriptions_by_message \(name=\? AND key=\?\)/,
      );
      expect(plan(SQL.selectClaimable, { now: 1, limit: 10, takeOver: '["node-gone"]' })).toMatch(
        /SEARCH instances USING (COVERING )?INDEX instances_by_status/,
      );
      // Held leases only, not every instance: a sweep for work left behind reads the partial index.
      expect(plan(SQL.selectLapsed, { now: 1, limit: 10, takeOver: '["node-gone"]' })).toMatch(
        /^SCAN instances USING INDEX instances_leased/,
      );
      expect(plan('SELECT instance_id FROM instances WHERE parent_id = ?', 'order-0')).toMatch(
        /SEARCH instances USING (COVERING )?INDEX instances_by_parent \(parent_id=\?\)/,
      );
    } finally {
      db.close();
    }
  });

  it('should refuse a database whose schema version is newer than this build supports, naming both', async () => {
    const path = join(directory, 'future.db');
    const db = raw(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();

    let error: unknown;
    try {
      open(path);
    } catch (caught) {
      error = caught;
    }

    expect(error).toBeInstanceOf(CheckpointError);
    expect((error as CheckpointError).code).toBe('THRESHER_FUTURE_SCHEMA');
    expect((error as CheckpointError).message).toContain(path);
    expect((error as CheckpointError).message).toContain(`schema version ${SCHEMA_VERSION + 1}`);
    expect((error as CheckpointError).message).toContain(`at most ${SCHEMA_VERSION}`);
    const after = raw(path);
    try {
      // Refused before anything was written: neither the version nor the journal mode changed.
      expect(after.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION + 1);
      expect(after.pragma('journal_mode', { simple: true })).toBe('delete');
    } finally {
      after.close();
    }
  });

  it('should create the missing parent directories of a relative path', async () => {
    const target = join(directory, 'project', '.thresher', 'thresher.db');
    const path = relative(process.cwd(), target);
    expect(path.startsWith('/')).toBe(false);

    const repository = open(path);
    await repository.put(checkpoint('order-1', 1, utf8('one')));

    expect(repository.path).toBe(target);
    expect(existsSync(target)).toBe(true);
  });

  it('should open a private in-memory database for ":memory:"', async () => {
    const repository = open(':memory:');

    await repository.put(checkpoint('order-1', 1, utf8('one')));

    expect(repository.path).toBe(':memory:');
    expect((await repository.get('order-1'))?.seq).toBe(1);
  });

  it('should accept synchronous NORMAL and refuse a value that is neither FULL nor NORMAL', async () => {
    const repository = open(join(directory, 'normal.db'), 'NORMAL');
    await repository.put(checkpoint('order-1', 1, utf8('one')));

    expect(() => createSqliteRepository({ path: join(directory, 'bad.db'), synchronous: 'OFF' as 'FULL' })).toThrow(
      CheckpointError,
    );
    expect(existsSync(join(directory, 'bad.db'))).toBe(false);
  });

  it('should name a synchronous value JSON cannot print in its refusal, not throw a TypeError', () => {
    const path = join(directory, 'bad.db');

    expect(() => createSqliteRepository({ path, synchronous: 1n as unknown as 'FULL' })).toThrow(
      /synchronous must be 'FULL' or 'NORMAL', not 1$/,
    );
  });
});

describe('createSqliteRepository mmapSize', () => {
  function mapped(options: Omit<SqliteRepositoryOptions, 'path'>, name = 'mapped.db'): number {
    const { db } = openDatabase({ path: join(directory, name), ...options });
    try {
      return Number(db.pragma('mmap_size', { simple: true }));
    } finally {
      db.close();
    }
  }

  it('should read the file through a 256 MiB memory map by default, and through none with 0', () => {
    expect(mapped({})).toBe(256 * 2 ** 20);
    expect(mapped({ mmapSize: 0 })).toBe(0);
    expect(mapped({ mmapSize: 4096 })).toBe(4096);
  });

  it.each([
    [-1, 'mmapSize must be a whole number of bytes, 0 or more, not -1'],
    [1.5, 'mmapSize must be a whole number of bytes, 0 or more, not 1.5'],
    [Number.NaN, 'mmapSize must be a whole number of bytes, 0 or more, not NaN'],
    ['1024', 'mmapSize must be a whole number of bytes, 0 or more, not "1024"'],
    [1024n, 'mmapSize must be a whole number of bytes, 0 or more, not 1024'],
    [{}, 'mmapSize must be a whole number of bytes, 0 or more, not an object'],
  ])('should refuse mmapSize %s by name before creating the file', (mmapSize, message) => {
    const path = join(directory, 'refused.db');

    expect(() => createSqliteRepository({ path, mmapSize: mmapSize as number })).toThrow(message);
    expect(existsSync(path)).toBe(false);
  });

  it('should refuse a map size for ":memory:", which has no file to map, and take 0 or none', async () => {
    expect(() => createSqliteRepository({ path: ':memory:', mmapSize: 4096 })).toThrow(
      'mmapSize 4096 maps a database file, and ":memory:" has none (leave it out, or 0)',
    );

    for (const options of [{ mmapSize: 0 }, {}]) {
      const repository = createSqliteRepository({ path: ':memory:', ...options });
      opened.push(repository);
      await repository.put(checkpoint('order-1', 1, utf8('one')));
      expect((await repository.get('order-1'))?.seq).toBe(1);
    }
  });

  it('should refuse a size past what this SQLite build maps instead of mapping less without a word', () => {
    const path = join(directory, 'too-big.db');

    expect(() => createSqliteRepository({ path, mmapSize: 2 ** 52 })).toThrow(
      /mmapSize 4503599627370496 is more than this SQLite build maps \(at most \d+ bytes\)/,
    );
  });

  it('should read through its map what another connection wrote and copied into the file', async () => {
    const path = join(directory, 'shared.db');
    const reader = createSqliteRepository({ path });
    opened.push(reader);
    await reader.put(checkpoint('order-1', 1, utf8('one')));
    expect(new TextDecoder().decode((await reader.get('order-1'))?.bytes)).toBe('one');

    const writer = createSqliteRepository({ path, mmapSize: 0 });
    opened.push(writer);
    await writer.put(checkpoint('order-1', 2, utf8('two')));
    await writer.put(checkpoint('order-2', 1, utf8('other')));
    const db = raw(path);
    try {
      // The WAL copied into the database file and emptied: the reader's pages now come from the file alone.
      expect(db.pragma('wal_checkpoint(TRUNCATE)')).toEqual([{ busy: 0, log: 0, checkpointed: 0 }]);
    } finally {
      db.close();
    }

    expect(new TextDecoder().decode((await reader.get('order-1'))?.bytes)).toBe('two');
    expect(new TextDecoder().decode((await reader.get('order-2'))?.bytes)).toBe('other');
  });
});

describe('SqliteRepository', () => {
  it('should store a document as a BLOB and read its bytes back verbatim', async () => {
    const repository = open();
    const bytes = Uint8Array.of(0, 0x7b, 0, 0xff, 0xfe, 0, 0x22, 0xc3, 0x28, 0);

    await repository.put(checkpoint('order-1', 1, bytes));

    const db = raw(repository.path);
    try {
      const row = db.prepare('SELECT typeof(document) AS type, document FROM steps').get() as {
        type: string;
        document: Buffer;
      };
      expect(row.type).toBe('blob');
      expect(Array.from(row.document)).toEqual(Array.from(bytes));
    } finally {
      db.close();
    }
    const stored = await repository.get('order-1');
    expect(Object.getPrototypeOf(stored?.bytes)).toBe(Uint8Array.prototype);
    expect(Array.from(stored!.bytes)).toEqual(Array.from(bytes));
  });

  it('should see puts made through another connection to the same file and refuse a stale parent', async () => {
    const path = join(directory, 'shared.db');
    const mine = open(path);
    const theirs = open(path);
    await mine.put(checkpoint('order-1', 1, utf8('one')));

    await expect(theirs.put(checkpoint('order-1', 1, utf8('other one')))).rejects.toBeInstanceOf(ConflictError);
    await theirs.put(checkpoint('order-1', 2, utf8('two by them')));
    await expect(mine.put(checkpoint('order-1', 2, utf8('two by me')))).rejects.toBeInstanceOf(ConflictError);
    await expect(mine.put(checkpoint('order-1', 3, utf8('three'), 1))).rejects.toBeInstanceOf(ConflictError);

    expect((await mine.get('order-1'))?.bytes).toEqual(utf8('two by them'));
  });

  it("should give first puts' leases tokens from a block each connection reserved, below every later claim's", async () => {
    // given two connections to one file, each creating instances with a claim
    const path = join(directory, 'shared.db');
    const mine = open(path);
    const theirs = open(path);
    const claim = (owner: string) => ({ owner, ttlMs: 1_000, now: 0 });
    const first = await mine.put({ ...checkpoint('order-1', 1, utf8('one')), claim: claim('node-a') });
    const second = await theirs.put({ ...checkpoint('order-2', 1, utf8('two')), claim: claim('node-b') });
    const third = await mine.put({ ...checkpoint('order-3', 1, utf8('three')), claim: claim('node-a') });
    const sequence = () => {
      const db = raw(path);
      try {
        return db.prepare("SELECT value FROM sequences WHERE name = 'lease_token'").get();
      } finally {
        db.close();
      }
    };

    // when every lease lapses and node-b claims them all
    const taken = await theirs.claim({ owner: 'node-b', ttlMs: 1_000, now: 1_000, limit: 10 });

    // then a first put took the next token of its connection's block (the sequence moved once per block, not
    // once per put), the blocks do not overlap, and a claim's token is past every block reserved before it
    expect(third!.token).toBe(first!.token + 1);
    expect(Math.abs(second!.token - first!.token)).toBeGreaterThanOrEqual(CREATE_TOKEN_BLOCK);
    expect(taken.map((lease) => lease.instanceId)).toEqual(['order-1', 'order-2', 'order-3']);
    for (const lease of taken) expect(lease.token).toBeGreaterThan(Math.max(first!.token, second!.token, third!.token));
    expect(sequence()).toEqual({ value: 2 * CREATE_TOKEN_BLOCK + 3 });
  });

  it('should leave no rows of a deleted instance behind', async () => {
    const repository = open();
    const first = checkpoint('order-1', 1, utf8('one'));
    await repository.put({ ...first, meta: { ...first.meta, subscriptions: [{ name: 'payment', key: null }] } });
    await repository.putWrites('order-1', 1, [{ taskId: 'charge', index: 0, value: utf8('paid') }]);
    await repository.claim({ owner: 'node-a', ttlMs: 1000, now: 0, limit: 1 });

    await repository.delete('order-1');

    const db = raw(repository.path);
    try {
      const count = (table: string) => db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get();
      const tables = ['instances', 'steps', 'writes', 'subscriptions'];
      expect(tables.map(count)).toEqual([0, 0, 0, 0]);
    } finally {
      db.close();
    }
  });

  it('should refuse text SQLite would mangle, a lone surrogate, rather than store it altered', async () => {
    const repository = open();

    await expect(repository.put(checkpoint('order-\uD800', 1, utf8('one')))).rejects.toBeInstanceOf(
      UnencodableValueError,
    );
    await repository.put(checkpoint('order-1', 1, utf8('one')));
    await expect(
      repository.putWrites('order-1', 1, [{ taskId: 'charge-\uDC00', index: 0, value: utf8('paid') }]),
    ).rejects.toMatchObject({ code: 'THRESHER_UNENCODABLE_VALUE', path: 'writes[0].taskId' });

    expect(await repository.instances()).toHaveLength(1);
    expect(await repository.get('order-\uD800')).toBeUndefined();
    expect((await repository.get('order-1'))?.writes).toEqual([]);
  });

  it('should report a driver failure as a CheckpointError with code THRESHER_STORE and the cause', async () => {
    const repository = open();
    await repository.put(checkpoint('order-1', 1, utf8('one')));
    const db = raw(repository.path);
    db.exec('DROP TABLE writes');
    db.close();

    const error = await repository.get('order-1').then(
      () => undefined,
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(CheckpointError);
    expect((error as CheckpointError).code).toBe('THRESHER_STORE');
    expect((error as CheckpointError).message).toContain(repository.path);
    expect((error as CheckpointError).cause).toBeInstanceOf(Error);
  });
});

/** The built package: child processes run plain Node, which cannot load the TypeScript sources. */
const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/**
 * One writer process: opens the file (racing the others through migration), reports ready, waits for the
 * go line on stdin (so all writers contend at once), then commits `increments` checkpoints to one shared
 * instance, each derived from the latest it read, retrying when it loses the race.
 */
const WRITER = `
const [dist, path, name, increments] = process.argv.slice(2);
const { createSqliteRepository } = await import(dist);
const repository = createSqliteRepository({ path });
process.stdout.write('ready\\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
process.stdin.destroy();
const meta = { status: 'running', processId: 'p', definitionId: 'd', businessKey: null, parentId: null, callNodeId: null,
  dueAt: null, subscriptions: [] };
let won = 0;
let lost = 0;
while (won < Number(increments)) {
  const latest = await repository.get('shared');
  const seq = (latest?.seq ?? 0) + 1;
  const bytes = new TextEncoder().encode(name + ':' + seq);
  try {
    await repository.put({ instanceId: 'shared', seq, parentSeq: latest?.seq ?? null, schema: 1,
      definitionDigest: 'd', digest: name + ':' + seq, bytes, meta });
    won++;
  } catch (error) {
    if (error.code !== 'THRESHER_CONFLICT') throw error;
    lost++;
  }
}
await repository.close();
process.stdout.write(JSON.stringify({ name, won, lost }));
`;

interface Writer {
  /** Settles once the writer has opened the repository. */
  ready: Promise<void>;
  go(): void;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function startWriter(script: string, path: string, name: string, increments: number): Writer {
  const child = spawn(process.execPath, [script, pathToFileURL(DIST).href, path, name, String(increments)]);
  let stdout = '';
  let stderr = '';
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolvePromise) => {
    markReady = resolvePromise;
  });
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    if (stdout.startsWith('ready\n')) markReady();
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolvePromise, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      // A writer that died before it was ready must not leave the barrier waiting forever.
      markReady();
      resolvePromise({ code, stdout, stderr });
    });
  });
  return { ready, go: () => child.stdin.end('go\n'), done };
}

describe('getMany rows', () => {
  const row = (at: number, ord: number | null): PlacedRow => ({
    instance_id: `order-${at}`,
    seq: 1,
    parent_seq: null,
    schema: 1,
    definition_digest: 'definition-digest',
    digest: `digest-${at}`,
    document: utf8('{}'),
    task_id: ord === null ? null : 'task',
    idx: ord,
    value: ord === null ? null : utf8('v'),
    at,
    ord,
  });

  it('should keep rows that came in the order asked as they are, without sorting them', () => {
    const rows = [row(0, 0), row(0, 1), row(1, null), row(2, 0)];

    expect(inIdsOrder(rows)).toBe(rows);
  });

  it('should put rows that came in another order in the order asked, each journal in filing order', () => {
    const rows = [row(2, 0), row(0, 1), row(1, null), row(0, 0)];

    expect(inIdsOrder(rows).map(({ at, ord }) => [at, ord])).toEqual([
      [0, 0],
      [0, 1],
      [1, null],
      [2, 0],
    ]);
  });
});

describe('SqliteRepository across processes', () => {
  it.skipIf(!existsSync(DIST))(
    'should let processes sharing one fresh file commit every checkpoint exactly once (needs `pnpm run build`)',
    async () => {
      const path = join(directory, 'shared.db');
      const script = join(directory, 'writer.mjs');
      writeFileSync(script, WRITER);
      const writers = ['w1', 'w2', 'w3', 'w4'];
      const increments = 50;

      const running = writers.map((name) => startWriter(script, path, name, increments));
      await Promise.all(running.map(({ ready }) => ready));
      for (const writer of running) writer.go();
      const results = await Promise.all(running.map(({ done }) => done));

      for (const result of results) expect(result, result.stderr).toMatchObject({ code: 0 });
      const repository = open(path);
      const history = await repository.list('shared');
      expect(history.map(({ seq }) => seq)).toEqual(
        Array.from({ length: writers.length * increments }, (_, i) => i + 1),
      );
      expect(history.every(({ seq, parentSeq }) => parentSeq === (seq === 1 ? null : seq - 1))).toBe(true);
      // Every acknowledged put is in the history, under the writer that was told it won.
      const byWriter = new Map(writers.map((name) => [name, 0]));
      for (const { bytes, seq } of history) {
        const [name, written] = new TextDecoder().decode(bytes).split(':');
        expect(Number(written)).toBe(seq);
        byWriter.set(name!, (byWriter.get(name!) ?? 0) + 1);
      }
      expect(Object.fromEntries(byWriter)).toEqual(Object.fromEntries(writers.map((name) => [name, increments])));
    },
  );
});
