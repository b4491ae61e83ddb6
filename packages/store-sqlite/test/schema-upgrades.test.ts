import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { InstanceStatus, PutCheckpoint } from '@thresher/checkpoint';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteRepository, MIGRATIONS, SCHEMA_VERSION, type SqliteRepository } from '../src/index.js';
import { migrate } from '../src/migrations.js';
import { instanceFilter } from '../src/rows.js';
import { selectInstancesSql } from '../src/statements.js';

let directory: string;
const opened: SqliteRepository[] = [];

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'thresher-sqlite-upgrades-'));
});

afterEach(async () => {
  for (const repository of opened.splice(0)) await repository.close();
  rmSync(directory, { recursive: true, force: true });
});

function open(path = join(directory, 'thresher.db')): SqliteRepository {
  const repository = createSqliteRepository({ path });
  opened.push(repository);
  return repository;
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

/** What a newer build's migration does to the file: a change of its own, and the version it records. */
function migrateAsANewerBuild(path: string): void {
  const db = new Database(path);
  try {
    db.transaction(() => {
      db.exec('CREATE TABLE from_a_newer_build (id INTEGER PRIMARY KEY)');
      db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    }).immediate();
  } finally {
    db.close();
  }
}

describe('schema version 4: the root of every call tree', () => {
  it('should back-fill rootId when it upgrades a version-3 file, walking trees down from their roots', async () => {
    const path = join(directory, 'v3.db');
    const db = new Database(path);
    for (const migration of MIGRATIONS.slice(0, 3)) db.exec(migration.sql);
    db.pragma('user_version = 3');
    const insert = db.prepare(
      `INSERT INTO instances (instance_id, latest_seq, definition_digest, status, process_id, definition_id,
        business_key, parent_id, call_node_id, due_at) VALUES (?, 1, 'dd', 'running', 'p', 'd', NULL, ?, ?, NULL)`,
    );
    // Children before their parents, and a subtree whose root was deleted before the upgrade.
    for (const [id, parent] of [
      ['grandchild', 'child'],
      ['child', 'root'],
      ['root', null],
      ['orphan', 'deleted-root'],
      ['orphan-child', 'orphan'],
      ['solo', null],
    ] as const) {
      insert.run(id, parent, parent === null ? null : 'call');
    }
    db.close();

    const repository = open(path);

    const roots = Object.fromEntries(
      (await repository.instances()).map(({ instanceId, rootId }) => [instanceId, rootId]),
    );
    expect(roots).toEqual({
      child: 'root',
      grandchild: 'root',
      orphan: 'deleted-root',
      'orphan-child': 'deleted-root',
      root: 'root',
      solo: 'solo',
    });
    expect((await repository.instances({ rootId: 'root' })).map(({ instanceId }) => instanceId)).toEqual([
      'child',
      'grandchild',
      'root',
    ]);
    await repository.put(checkpoint('great-grandchild', 1, 'grandchild'));
    expect((await repository.instances({ rootId: 'root' })).map(({ instanceId }) => instanceId)).toContain(
      'great-grandchild',
    );
    // A tree whose root is not stored is its descendants; an instance that is not a root has no tree.
    expect((await repository.instances({ rootId: 'deleted-root' })).map(({ instanceId }) => instanceId)).toEqual([
      'orphan',
      'orphan-child',
    ]);
    expect(await repository.instances({ rootId: 'child' })).toEqual([]);
  });

  it('should find a call tree through the instances_by_root index, in either order', async () => {
    const repository = open();
    await repository.put(checkpoint('root', 1));

    const db = new Database(repository.path);
    try {
      for (const desc of [false, true]) {
        const sql = selectInstancesSql({
          serial: false,
          ids: false,
          roots: false,
          children: false,
          processId: false,
          businessKey: false,
          parentId: false,
          status: false,
          liveStatus: false,
          definition: false,
          after: false,
          limit: true,
          rootId: true,
          before: false,
          desc,
          idsOnly: false,
        });
        const plan = (
          db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ rootId: 'root', limit: 10 }) as { detail: string }[]
        )
          .map(({ detail }) => detail)
          .join('; ');
        // The root by its id, its descendants through the index, in id order: no temporary B-tree sorts them.
        expect(plan).toContain('SEARCH instances USING PRIMARY KEY (instance_id=?)');
        expect(plan).toContain('SEARCH instances USING INDEX instances_by_root (root_id=?)');
        expect(plan).not.toContain('TEMP B-TREE');
      }
    } finally {
      db.close();
    }
  });
});

describe('schema version 5: the held lease on the instance row', () => {
  it('should move the leases of a version-4 file onto their instance rows, keeping owners, tokens and expiries', async () => {
    const path = join(directory, 'v4.db');
    const db = new Database(path);
    for (const migration of MIGRATIONS.slice(0, 4)) db.exec(migration.sql);
    db.pragma('user_version = 4');
    const insert = db.prepare(
      `INSERT INTO instances (instance_id, latest_seq, definition_digest, status, process_id, definition_id,
        business_key, parent_id, call_node_id, due_at, root_id) VALUES (?, 1, 'dd', 'running', 'p', 'd', NULL, NULL, NULL, NULL, ?)`,
    );
    for (const id of ['held', 'lapsed', 'free']) insert.run(id, id);
    db.prepare("INSERT INTO leases (instance_id, owner, token, expires_at) VALUES ('held', 'node-a', 7, 5000)").run();
    db.prepare("INSERT INTO leases (instance_id, owner, token, expires_at) VALUES ('lapsed', 'node-b', 8, 100)").run();
    db.prepare("UPDATE sequences SET value = 8 WHERE name = 'lease_token'").run();
    db.close();

    const repository = open(path);

    expect(await repository.lease('held')).toEqual({ instanceId: 'held', owner: 'node-a', token: 7, expiresAt: 5000 });
    expect(await repository.lease('free')).toBeUndefined();
    const taken = await repository.claim({ owner: 'node-c', ttlMs: 1000, now: 200, limit: 10 });
    expect(taken.map(({ instanceId, token }) => [instanceId, token])).toEqual([
      ['free', 9],
      ['lapsed', 10],
    ]);
    const after = new Database(path);
    try {
      expect(after.prepare("SELECT name FROM sqlite_master WHERE name = 'leases'").all()).toEqual([]);
    } finally {
      after.close();
    }
  });

  it('should index every column a put changes, whichever of them it changes', async () => {
    const repository = open();
    await repository.put(checkpoint('root-a', 1));
    await repository.put(checkpoint('root-b', 1));
    await repository.put(checkpoint('order-1', 1, 'root-a'));
    const changes: Partial<PutCheckpoint['meta']>[] = [
      { businessKey: 'A-1' },
      { dueAt: 50 },
      { status: 'completed' },
      { processId: 'other_process', definitionId: 'other-definition' },
      { parentId: 'root-b', callNodeId: 'call-b' },
      { dueAt: null, businessKey: null },
    ];
    let meta = checkpoint('order-1', 1, 'root-a').meta;
    for (const [index, change] of changes.entries()) {
      meta = { ...meta, ...change };
      const next = checkpoint('order-1', index + 2, 'root-a');
      await repository.put({ ...next, meta, definitionDigest: `definition-${index}` });
      const [summary] = await repository.instances({ after: 'order-0', before: 'order-2' });
      expect(summary).toMatchObject({ ...meta, latestSeq: index + 2, definitionDigest: `definition-${index}` });
    }
    expect((await repository.instances({ rootId: 'root-b' })).map(({ instanceId }) => instanceId)).toEqual([
      'order-1',
      'root-b',
    ]);
    expect((await repository.instances({ parentId: 'root-a' })).map(({ instanceId }) => instanceId)).toEqual([]);
    expect((await repository.instances({ status: 'completed' })).map(({ instanceId }) => instanceId)).toEqual([
      'order-1',
    ]);
  });
});

/** The built package: child processes run plain Node, which cannot load the TypeScript sources. */
const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/**
 * A process of this build holding the file open: it opens the store and writes seq 1, says ready, waits for
 * the go line on stdin, then tries seq 2 and reports how that went as one JSON line.
 */
const WRITER = `
const [dist, path] = process.argv.slice(2);
const { createSqliteRepository } = await import(dist);
const repository = createSqliteRepository({ path });
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
  it.skipIf(!existsSync(DIST))(
    'should refuse the running process its next write once another process migrated the file (needs `pnpm run build`)',
    async () => {
      const path = join(directory, 'shared.db');
      const script = join(directory, 'writer.mjs');
      writeFileSync(script, WRITER);
      const child = spawn(process.execPath, [script, pathToFileURL(DIST).href, path]);
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

      migrateAsANewerBuild(path);
      child.stdin.end('go\n');

      expect(await exited, stderr).toBe(0);
      const outcome = JSON.parse(stdout.slice('ready\n'.length));
      expect(outcome).toMatchObject({ written: false, name: 'StoreUpgradedError', code: 'THRESHER_STORE_UPGRADED' });
      expect(outcome.message).toContain(path);
      expect(outcome.message).toContain(`migrated to schema ${SCHEMA_VERSION + 1}`);
      const db = new Database(path, { readonly: true });
      try {
        expect(db.prepare("SELECT seq FROM steps WHERE instance_id = 'order-1'").pluck().all()).toEqual([1]);
      } finally {
        db.close();
      }
    },
  );
});

describe('schema version 6: completed instances out of the status index', () => {
  it('should upgrade a version-5 file and list every status as before, through the index but for completed ones', async () => {
    // given a version-5 file with instances of three statuses
    const path = join(directory, 'v5.db');
    const db = new Database(path);
    for (const migration of MIGRATIONS.slice(0, 5)) db.exec(migration.sql);
    db.pragma('user_version = 5');
    const insert = db.prepare(
      `INSERT INTO instances (instance_id, latest_seq, definition_digest, status, process_id, definition_id,
        business_key, parent_id, call_node_id, due_at, root_id) VALUES (?, 1, 'dd', ?, 'p', 'd', NULL, NULL, NULL, NULL, ?)`,
    );
    for (const [id, status] of [
      ['a', 'completed'],
      ['b', 'running'],
      ['c', 'terminated'],
      ['d', 'completed'],
      ['e', 'running'],
    ]) {
      insert.run(id, status, id);
    }
    db.close();

    // when a build of schema 6 opens it
    const repository = open(path);
    const listed = async (status: InstanceStatus) =>
      (await repository.instances({ status })).map(({ instanceId }) => instanceId);

    // then each status lists what it did, and only the statuses other than completed are in the index
    expect(await listed('completed')).toEqual(['a', 'd']);
    expect(await listed('running')).toEqual(['b', 'e']);
    expect(await listed('terminated')).toEqual(['c']);
    const after = new Database(path);
    try {
      const indexed = after
        .prepare("SELECT instance_id FROM instances INDEXED BY instances_by_status WHERE status <> 'completed'")
        .all();
      expect(indexed).toHaveLength(3);
      const plan = (status: InstanceStatus) => {
        const { shape, params } = instanceFilter({ status, limit: 10 });
        return (after.prepare(`EXPLAIN QUERY PLAN ${selectInstancesSql(shape)}`).all(params) as { detail: string }[])
          .map(({ detail }) => detail)
          .join('; ');
      };
      expect(plan('running')).toMatch(/^SEARCH instances USING INDEX instances_by_status \(status=\?\)$/);
      expect(plan('completed')).not.toContain('instances_by_status');
    } finally {
      after.close();
    }
  });

  it('should move an instance that completes out of the running list and into the completed one', async () => {
    const repository = open();
    await repository.put(checkpoint('order-1', 1));
    const next = checkpoint('order-1', 2);

    await repository.put({ ...next, meta: { ...next.meta, status: 'completed' } });

    expect(await repository.instances({ status: 'running' })).toEqual([]);
    expect((await repository.instances({ status: 'completed' })).map(({ instanceId }) => instanceId)).toEqual([
      'order-1',
    ]);
  });

  it('should list the ids of running instances from the status index alone, not their rows', async () => {
    const repository = open();
    await repository.put(checkpoint('root', 1));

    const db = new Database(repository.path);
    try {
      const shape = { ...instanceFilter({ status: 'running', after: 'a', limit: 10 }).shape, idsOnly: true };
      const plan = (
        db
          .prepare(`EXPLAIN QUERY PLAN ${selectInstancesSql(shape)}`)
          .all({ status: 'running', after: 'a', limit: 10 }) as {
          detail: string;
        }[]
      )
        .map(({ detail }) => detail)
        .join('; ');
      expect(plan).toContain('USING COVERING INDEX instances_by_status');
      expect(plan).not.toContain('TEMP B-TREE');
    } finally {
      db.close();
    }
  });
});

describe('schema version 8: instances WITHOUT ROWID', () => {
  /** A version-7 file: an instance holding a lease and a timer, with two checkpoints, a journal entry and a subscription. */
  function versionSevenFile(path: string): Database.Database {
    const db = new Database(path);
    for (const migration of MIGRATIONS.slice(0, 7)) db.exec(migration.sql);
    db.pragma('user_version = 7');
    db.prepare(
      `INSERT INTO instances (instance_id, latest_seq, definition_digest, status, process_id, definition_id,
        business_key, parent_id, call_node_id, due_at, root_id, lease_owner, lease_token, lease_expires_at)
        VALUES ('order-1', 2, 'dd', 'running', 'p', 'd', 'A-1', NULL, NULL, 500, 'order-1', 'node-a', 7, 9000)`,
    ).run();
    const insertCheckpoint = db.prepare(
      `INSERT INTO checkpoints (instance_id, seq, parent_seq, schema, definition_digest, digest, document)
        VALUES ('order-1', ?, ?, 1, 'dd', ?, ?)`,
    );
    insertCheckpoint.run(1, null, 'digest-1', Buffer.from('one'));
    insertCheckpoint.run(2, 1, 'digest-2', Buffer.from('two'));
    db.prepare(
      "INSERT INTO writes (instance_id, seq, task_id, idx, ord, value) VALUES ('order-1', 2, 'charge', 0, 0, ?)",
    ).run(Buffer.from('paid'));
    db.prepare("INSERT INTO subscriptions (instance_id, ord, name, key) VALUES ('order-1', 0, 'paid', 'A-1')").run();
    return db;
  }

  const indexesOf = (db: Database.Database) =>
    db
      .prepare(
        "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'instances' AND sql IS NOT NULL",
      )
      .all()
      .sort((a, b) => String((a as { name: string }).name).localeCompare((b as { name: string }).name));

  it('should rebuild the instances table of a version-7 file without losing a checkpoint, journal entry, subscription or lease', async () => {
    // given a version-7 file and the indexes it has on instances
    const path = join(directory, 'v7.db');
    const before = versionSevenFile(path);
    const indexes = indexesOf(before);
    before.close();

    // when this build opens it
    const repository = open(path);

    // then the rows live in the primary key, with the same indexes, and every row that references them is kept
    const after = new Database(path);
    try {
      const { sql } = after.prepare("SELECT sql FROM sqlite_schema WHERE name = 'instances'").get() as { sql: string };
      expect(sql).toMatch(/WITHOUT ROWID$/);
      // Schema 9 adds the index of ended instances, schema 10 the index of serials.
      const later = ['instances_ended', 'instances_by_serial'];
      expect(indexesOf(after).filter((index) => !later.includes((index as { name: string }).name))).toEqual(indexes);
      expect(after.pragma('foreign_key_check')).toEqual([]);
    } finally {
      after.close();
    }
    expect((await repository.list('order-1')).map(({ seq, bytes }) => [seq, Array.from(bytes)])).toEqual([
      [1, Array.from(utf8('one'))],
      [2, Array.from(utf8('two'))],
    ]);
    expect((await repository.get('order-1'))?.writes).toEqual([{ taskId: 'charge', index: 0, value: utf8('paid') }]);
    expect(await repository.lease('order-1')).toEqual({
      instanceId: 'order-1',
      owner: 'node-a',
      token: 7,
      expiresAt: 9000,
    });
    expect(await repository.dueTimers(1000, 10)).toEqual([{ instanceId: 'order-1', dueAt: 500 }]);
    expect(await repository.subscriptions('paid', 'A-1')).toEqual(['order-1']);
    expect(await repository.instances({ businessKey: 'A-1' })).toMatchObject([
      { instanceId: 'order-1', latestSeq: 2, status: 'running', rootId: 'order-1', dueAt: 500 },
    ]);
  });

  it('should give the connection its foreign keys back after the rebuild, so deleting an instance still cascades', () => {
    // given a version-7 file, opened as the repository opens it: foreign keys on
    const path = join(directory, 'v7.db');
    versionSevenFile(path).close();
    const db = new Database(path);
    try {
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);

      // when it is migrated (which turns them off for the rebuild)
      migrate(db, path);

      // then they are on again, and the references to the rebuilt table still cascade
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      db.prepare("DELETE FROM instances WHERE instance_id = 'order-1'").run();
      const left = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
      expect([left('steps'), left('writes'), left('subscriptions')]).toEqual([0, 0, 0]);
    } finally {
      db.close();
    }
  });

  it('should upgrade a file that already held a dangling reference (written with foreign keys off), leaving it as it was', async () => {
    // given a version-7 file with a checkpoint whose instance is gone
    const path = join(directory, 'v7.db');
    const db = versionSevenFile(path);
    db.pragma('foreign_keys = OFF'); // better-sqlite3 turns them on for every connection
    db.prepare(
      `INSERT INTO checkpoints (instance_id, seq, parent_seq, schema, definition_digest, digest, document)
        VALUES ('gone', 1, NULL, 1, 'dd', 'digest-gone', ?)`,
    ).run(Buffer.from('orphan'));
    db.close();

    // when this build opens it, then it upgrades: the rebuild broke nothing that held
    const repository = open(path);
    expect((await repository.get('order-1'))?.seq).toBe(2);
    const after = new Database(path);
    try {
      expect(after.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(after.pragma('foreign_key_check')).toEqual([
        { table: 'steps', rowid: expect.any(Number), parent: 'instances', fkid: 0 },
      ]);
    } finally {
      after.close();
    }
  });
});

describe('schema version 9: the step log apart from checkpoints', () => {
  it("should start the log past every position a version-8 file's history handed out, keeping its checkpoints", async () => {
    // given a version-8 file whose checkpoint history handed out positions up to 3 (the newest deleted)
    const path = join(directory, 'v8.db');
    const db = new Database(path);
    for (const migration of MIGRATIONS.slice(0, 8)) db.exec(migration.sql);
    db.pragma('user_version = 8');
    db.prepare(
      `INSERT INTO instances (instance_id, latest_seq, definition_digest, status, process_id, definition_id, root_id)
        VALUES ('order-1', 2, 'dd', 'running', 'p', 'd', 'order-1')`,
    ).run();
    const insertCheckpoint = db.prepare(
      `INSERT INTO checkpoints (rowid, instance_id, seq, parent_seq, schema, definition_digest, digest, document)
        VALUES (?, 'order-1', ?, ?, 1, 'dd', ?, ?)`,
    );
    insertCheckpoint.run(1, 1, null, 'digest-1', Buffer.from('one'));
    insertCheckpoint.run(2, 2, 1, 'digest-2', Buffer.from('two'));
    db.prepare("UPDATE sequences SET value = 3 WHERE name = 'position_floor'").run();
    db.close();

    // when this build opens it and an instance files a log entry
    const repository = open(path);
    await repository.put({ ...checkpoint('order-2', 1), log: utf8('entry') });

    // then the checkpoints are as they were, and the entry is past every position read before the upgrade
    expect((await repository.list('order-1')).map(({ seq }) => seq)).toEqual([1, 2]);
    const [entry] = await repository.history();
    expect(Number(entry!.position)).toBeGreaterThan(3);
    expect(await repository.history({ after: '3' })).toEqual([entry]);
    expect((await repository.instances())[0]).toMatchObject({ instanceId: 'order-1', endedAt: null });
  });
});

describe('schema version 10: instance serials', () => {
  it("should number a version-9 file's instances in id order, and a new one past them all", async () => {
    // given a version-9 file holding three instances, one of them a called child
    const path = join(directory, 'v9.db');
    const db = new Database(path);
    for (const migration of MIGRATIONS.slice(0, 9)) db.exec(migration.sql);
    db.pragma('user_version = 9');
    const insert = db.prepare(
      `INSERT INTO instances (instance_id, latest_seq, definition_digest, status, process_id, definition_id,
        parent_id, root_id) VALUES (?, 1, 'dd', 'running', 'p', 'd', ?, ?)`,
    );
    insert.run('order-b', null, 'order-b');
    insert.run('order-a', null, 'order-a');
    insert.run('order-c', 'order-a', 'order-a');
    db.close();

    // when this build opens it, an instance is created, one deleted and another created
    const repository = open(path);
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

describe('schema version 13: a step in one row', () => {
  it("should keep a version-12 file's checkpoints, pruned log entries, journal and positions, and hand out no position or serial twice", async () => {
    // given a version-12 file: order-1 with seq 1 pruned (its log entry kept), seq 2 and 3 stored, a journal
    // entry on 3; order-2 with a checkpoint whose put filed no log entry; positions up to 5 handed out
    const path = join(directory, 'v12.db');
    const db = new Database(path);
    for (const migration of MIGRATIONS.slice(0, 12)) db.exec(migration.sql);
    db.pragma('user_version = 12');
    const instance = db.prepare(
      `INSERT INTO instances (instance_id, latest_seq, definition_digest, status, process_id, definition_id, root_id,
        serial) VALUES (?, ?, 'dd', 'running', 'p', 'd', ?, ?)`,
    );
    instance.run('order-1', 3, 'order-1', 1);
    instance.run('order-2', 1, 'order-2', 2);
    const stored = db.prepare(
      `INSERT INTO checkpoints (instance_id, seq, parent_seq, schema, definition_digest, digest, document)
        VALUES (?, ?, ?, 1, 'dd', ?, ?)`,
    );
    stored.run('order-1', 2, 1, 'digest-2', Buffer.from('two'));
    stored.run('order-1', 3, 2, 'digest-3', Buffer.from('three'));
    stored.run('order-2', 1, null, 'digest-b', Buffer.from('b'));
    const log = db.prepare('INSERT INTO log (rowid, instance_id, seq, entry) VALUES (?, ?, ?, ?)');
    log.run(1, 'order-1', 1, Buffer.from('e1'));
    log.run(2, 'order-1', 2, Buffer.from('e2'));
    log.run(4, 'order-1', 3, Buffer.from('e3'));
    db.prepare(
      "INSERT INTO writes (instance_id, seq, task_id, idx, ord, value) VALUES ('order-1', 3, 't', 0, 0, ?)",
    ).run(Buffer.from('w'));
    db.prepare("UPDATE sequences SET value = 5 WHERE name = 'position_floor'").run();
    db.close();

    // when this build opens it
    const repository = open(path);

    // then the stored checkpoints read as before, with their entries and journal; the pruned one stays unreadable
    expect((await repository.list('order-1')).map(({ seq, log }) => [seq, log && Buffer.from(log).toString()])).toEqual(
      [
        [2, 'e2'],
        [3, 'e3'],
      ],
    );
    expect((await repository.get('order-1'))?.writes.map(({ taskId }) => taskId)).toEqual(['t']);
    expect(await repository.get('order-1', 1)).toBeUndefined();
    expect((await repository.get('order-2'))?.seq).toBe(1);
    // the log keeps its positions, the pruned step's entry included, and the entry-less checkpoint is none of it
    expect((await repository.history()).map(({ position, seq }) => [position, seq])).toEqual([
      ['1', 1],
      ['2', 2],
      ['4', 3],
    ]);

    // when order-1 is pruned to its latest and order-3 files a log entry, then order-3 is deleted and order-4 made
    await repository.prune('order-1', { keepLast: 1 });
    await repository.put({ ...checkpoint('order-3', 1), log: utf8('e-3') });
    const [, , , entry] = await repository.history();
    await repository.delete('order-3');
    await repository.put(checkpoint('order-4', 1));

    // then order-1 keeps its entries without the pruned checkpoint, positions move past every one handed out,
    // and serials past the deleted instance's
    expect((await repository.list('order-1')).map(({ seq }) => seq)).toEqual([3]);
    expect((await repository.history({ instanceId: 'order-1' })).map(({ seq }) => seq)).toEqual([1, 2, 3]);
    expect(Number(entry!.position)).toBeGreaterThan(5);
    await repository.put({ ...checkpoint('order-4', 2), log: utf8('e-4') });
    expect(Number((await repository.history({ after: entry!.position }))[0]!.position)).toBeGreaterThan(
      Number(entry!.position),
    );
    expect((await repository.instances()).map(({ instanceId, serial }) => [instanceId, serial])).toEqual([
      ['order-1', 1],
      ['order-2', 2],
      ['order-4', 4],
    ]);
  });
});
