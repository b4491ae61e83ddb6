import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PutCheckpoint } from '@thresher/checkpoint';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GroupCommit } from '../src/group-commit.js';
import { createSqliteRepository, SCHEMA_VERSION } from '../src/index.js';

let directory: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'thresher-group-'));
});

afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

const checkpoint = (instanceId: string, seq: number): PutCheckpoint => ({
  instanceId,
  seq,
  parentSeq: seq === 1 ? null : seq - 1,
  schema: 1,
  definitionDigest: 'definition-digest-1',
  digest: `digest:${instanceId}:${seq}`,
  bytes: new TextEncoder().encode(JSON.stringify({ instanceId, seq })),
  meta: {
    status: 'running',
    processId: 'order',
    definitionId: 'order',
    businessKey: null,
    parentId: null,
    callNodeId: null,
    dueAt: null,
    subscriptions: [],
  },
});

describe('group commit on SQLite', () => {
  it('should let any operation issued after writes see them, though the writes wait for the batch', async () => {
    // given a repository and puts of a hundred instances issued together, not awaited
    const repository = createSqliteRepository({ path: join(directory, 'thresher.db') });
    const puts = Array.from({ length: 100 }, (_, i) => repository.put(checkpoint(`order-${i}`, 1)));

    // when reads and a lease call are issued right after them
    const read = repository.get('order-99');
    const listed = repository.instances();
    const claimed = repository.claim({ owner: 'node-a', ttlMs: 1_000, now: 0, limit: 1000 });

    // then each sees every write issued before it
    expect((await read)?.seq).toBe(1);
    expect(await listed).toHaveLength(100);
    expect(await claimed).toHaveLength(100);
    await Promise.all(puts);
    await repository.close();
  });

  it('should tell a writer whose batch a read committed at the turn it was queued for, not between the reads of a caller reading on', async () => {
    // given a put issued and not awaited
    const repository = createSqliteRepository({ path: join(directory, 'thresher.db') });
    let told = false;
    const put = repository.put(checkpoint('order-1', 1)).then(() => {
      told = true;
    });

    // when a caller reads five times, each read awaited before the next (the first commits the put)
    const seen: (number | undefined)[] = [];
    for (let read = 0; read < 5; read++) seen.push((await repository.get('order-1'))?.seq);

    // then every read saw the put, and its writer was not told meanwhile (it would run on inside the reader's
    // chain of promises, and the two could keep the event loop from turning), but at its own turn
    expect(seen).toEqual([1, 1, 1, 1, 1]);
    expect(told).toBe(false);
    await put;
    expect(told).toBe(true);
    await repository.close();
  });

  it('should commit the writes issued before close, and keep them across a reopen', async () => {
    // given puts issued and close called at once
    const path = join(directory, 'thresher.db');
    const repository = createSqliteRepository({ path });
    const puts = [repository.put(checkpoint('order-1', 1)), repository.put(checkpoint('order-2', 1))];
    await repository.close();
    await Promise.all(puts);

    // when the file is opened again
    const reopened = createSqliteRepository({ path });

    // then both are there
    expect((await reopened.instances()).map((summary) => summary.instanceId)).toEqual(['order-1', 'order-2']);
    await reopened.close();
  });

  it('should commit releases issued together in one transaction, each releasing only its own lease', async () => {
    // given a hundred claimed instances
    const { path, repository, leases } = await hundredClaimed();
    const framesBefore = walFrames(path);

    // when all but one are released at once, with one stale release among them
    const stale = { ...leases[0]!, token: leases[0]!.token - 1 };
    await Promise.all([...leases.slice(1), stale].map((lease) => repository.release(lease)));

    // then one commit wrote them (a commit per release writes at least a frame each), and the stale one let go of nothing
    expect(walFrames(path) - framesBefore).toBeLessThan(20);
    expect(await repository.lease('order-0')).toEqual(leases[0]);
    for (const lease of leases.slice(1)) expect(await repository.lease(lease.instanceId)).toBeUndefined();
    await repository.close();
  });

  it('should commit renewals issued together in one transaction, refusing only a lease no longer held', async () => {
    // given a hundred claimed instances, one of them released since
    const { path, repository, leases } = await hundredClaimed();
    await repository.release(leases[0]!);
    const framesBefore = walFrames(path);

    // when all are renewed at once
    const outcomes = await Promise.allSettled(leases.map((lease) => repository.renew(lease, 60_000, 1_000)));

    // then one commit wrote the 99 renewals, and only the released lease was refused
    expect(walFrames(path) - framesBefore).toBeLessThan(20);
    expect(outcomes[0]).toMatchObject({ status: 'rejected', reason: { name: 'LeaseLostError' } });
    for (const [index, lease] of leases.entries()) {
      if (index === 0) continue;
      expect(outcomes[index]).toEqual({ status: 'fulfilled', value: { ...lease, expiresAt: 61_000 } });
      expect(await repository.lease(lease.instanceId)).toEqual({ ...lease, expiresAt: 61_000 });
    }
    await repository.close();
  });

  it('should commit the other writes of a batch when one is refused, and refuse only that one', async () => {
    // given an instance stored at seq 1
    const repository = createSqliteRepository({ path: join(directory, 'thresher.db') });
    await repository.put(checkpoint('order-1', 1));

    // when a batch puts a conflicting seq 1 between two good puts
    const outcomes = await Promise.allSettled([
      repository.put(checkpoint('order-2', 1)),
      repository.put({ ...checkpoint('order-1', 1), digest: 'another digest', bytes: new TextEncoder().encode('x') }),
      repository.put(checkpoint('order-1', 2)),
      repository.put(checkpoint('order-3', 1)),
    ]);

    // then only the conflicting put is refused, and everything else is stored
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(outcomes[1]).toMatchObject({ reason: { name: 'ConflictError' } });
    expect((await repository.get('order-1'))?.seq).toBe(2);
    expect((await repository.instances()).map((summary) => summary.instanceId)).toEqual([
      'order-1',
      'order-2',
      'order-3',
    ]);
    await repository.close();
  });

  it('should refuse a first put of a batch chosen among fewer deployments than are stored, and commit the others', async () => {
    // given two deployments
    const repository = createSqliteRepository({ path: join(directory, 'thresher.db') });
    for (const digest of ['digest-1', 'digest-2']) {
      await repository.putDeployment({ definitionId: 'order', digest, xml: '<definitions/>', deployedAt: 1 });
    }

    // when a batch holds first puts chosen among both, and one chosen among the first alone
    const outcomes = await Promise.allSettled([
      repository.put({ ...checkpoint('order-1', 1), deploymentsSeen: 2 }),
      repository.put({ ...checkpoint('order-2', 1), deploymentsSeen: 1 }),
      repository.put({ ...checkpoint('order-3', 1), deploymentsSeen: 2 }),
    ]);

    // then only the stale one is refused, and nothing of it is stored
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(outcomes[1]).toMatchObject({ reason: { name: 'StaleDeploymentsError', seen: 1, stored: 2 } });
    expect((await repository.instances()).map((summary) => summary.instanceId)).toEqual(['order-1', 'order-3']);
    await repository.close();
  });

  it('should refuse every write of a batch once a newer build migrated the file, storing none', async () => {
    // given a repository open on a file a newer build then migrated
    const path = join(directory, 'thresher.db');
    const repository = createSqliteRepository({ path });
    await repository.put(checkpoint('order-1', 1));
    const db = new Database(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();

    // when a batch of writes comes
    const outcomes = await Promise.allSettled([
      repository.put(checkpoint('order-2', 1)),
      repository.put(checkpoint('order-1', 2)),
    ]);

    // then each is refused as upgraded, and nothing was written
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({ status: 'rejected', reason: { code: 'THRESHER_STORE_UPGRADED' } });
    }
    const after = new Database(path, { readonly: true });
    expect(after.prepare('SELECT instance_id, seq FROM steps').all()).toEqual([{ instance_id: 'order-1', seq: 1 }]);
    after.close();
    await repository.close();
  });
});

/** A repository holding a hundred stored instances, each claimed by node-a. */
async function hundredClaimed() {
  const path = join(directory, 'thresher.db');
  const repository = createSqliteRepository({ path });
  await Promise.all(Array.from({ length: 100 }, (_, i) => repository.put(checkpoint(`order-${i}`, 1))));
  const leases = await repository.claim({ owner: 'node-a', ttlMs: 60_000, now: 0, limit: 100 });
  return { path, repository, leases };
}

/** Frames in the database's write-ahead log (header 32 bytes; each frame a 24-byte header and a 4 KiB page). */
function walFrames(path: string): number {
  return (statSync(`${path}-wal`).size - 32) / (24 + 4096);
}

describe('the sync a batch waits for', () => {
  const syncLevel = (db: Database.Database) => Number(db.pragma('synchronous', { simple: true }));

  it('should commit a batch of writes that need no sync of their own under NORMAL, one with any durable write under FULL, and leave the connection FULL', async () => {
    // given a connection in WAL mode with synchronous=FULL (2), and writes that report the level they ran under
    const db = new Database(join(directory, 'levels.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    const group = new GroupCommit(db, () => {});
    const level = () => syncLevel(db);

    // when releases alone, then a release beside a put, are committed
    const unsynced = await Promise.all([group.submit(level, false), group.submit(level, false)]);
    const mixed = await Promise.all([group.submit(level, false), group.submit(level)]);

    // then only the batch of unsynced writes ran under NORMAL (1), and the connection is FULL again
    expect(unsynced).toEqual([1, 1]);
    expect(mixed).toEqual([2, 2]);
    expect(syncLevel(db)).toBe(2);
    db.close();
  });

  it('should leave a NORMAL connection NORMAL, and restore FULL after an unsynced batch that fails', async () => {
    const normal = new Database(join(directory, 'normal.db'));
    normal.pragma('journal_mode = WAL');
    normal.pragma('synchronous = NORMAL');
    const relaxed = new GroupCommit(normal, () => {});
    expect(await relaxed.submit(() => syncLevel(normal), false)).toBe(1);
    expect(syncLevel(normal)).toBe(1);
    normal.close();

    const full = new Database(join(directory, 'full.db'));
    full.pragma('journal_mode = WAL');
    full.pragma('synchronous = FULL');
    const group = new GroupCommit(full, () => {});
    const refused = group.submit(() => {
      throw new Error('refused');
    }, false);
    await expect(refused).rejects.toThrow('refused');
    expect(syncLevel(full)).toBe(2);
    full.close();
  });
});
