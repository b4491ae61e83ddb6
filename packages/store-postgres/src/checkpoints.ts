/**
 * Checkpoints and their journal on PostgreSQL: the bodies of `put`, `rewrite`, `putWrites`, `delete`, `copy`
 * and `prune`, each run inside the READ COMMITTED transaction the repository opens and first locking the
 * instance's row (the lock every writer of the instance queues on), and the reads of `get` and `list`, run
 * in one REPEATABLE READ snapshot. Every rule is the shared one of `@thresher/checkpoint`.
 */
import {
  type CheckpointRow,
  ConflictError,
  decideCopy,
  decidePut,
  decideRewrite,
  type Fence,
  type ListOptions,
  type PendingWrite,
  type PutCheckpoint,
  type RewriteCheckpoint,
  type StoredCheckpoint,
  toStoredCheckpoint,
  toStoredCheckpoints,
  type WriteRow,
} from '@thresher/checkpoint';
import type { PgQueryable } from './driver.js';
import { lockAndFence } from './leases.js';
import {
  checkpointParams,
  type Int8,
  instanceParams,
  type LatestSeqRow,
  rewriteParams,
  subscriptionParams,
  writesParams,
} from './rows.js';
import type { Statements } from './statements.js';

/** Most journal entries bound in one INSERT: three parameters each, well below PostgreSQL's 65,535. */
const WRITES_PER_STATEMENT = 1000;

/**
 * `put` under the instance's row lock: the fence, then {@link decidePut} on what the lock holder sees. The
 * creation of an instance, which has no row to lock yet, is serialised by the primary key: the losing
 * insert waits for the winner and decides again under its lock.
 */
export async function putCheckpoint(client: PgQueryable, sql: Statements, checkpoint: PutCheckpoint): Promise<void> {
  const { instanceId, seq, meta } = checkpoint;
  const instanceValues = instanceParams(checkpoint);
  // Twice at most: a concurrent put may create the instance between our lock attempt and our insert.
  for (let attempt = 0; ; attempt++) {
    const locked = await lockAndFence(client, sql, instanceId, checkpoint.fence);
    const latest = locked === undefined ? null : Number(locked.latest_seq);
    const stored =
      latest === null
        ? undefined
        : (await client.query<{ document: Uint8Array }>(sql.selectDocument, [instanceId, seq])).rows[0]?.document;
    if (decidePut(checkpoint, stored, latest) === 'replay') return;
    if (latest === null) {
      const created = await client.query(sql.createInstance, instanceValues);
      if (created.rowCount === 0) {
        if (attempt > 0) throw new Error(`instance ${instanceId} exists but its row could not be locked`);
        continue;
      }
    } else {
      await client.query(sql.updateInstance, instanceValues);
      await client.query(sql.deleteSubscriptions, [instanceId]);
    }
    if (meta.subscriptions.length > 0) {
      await client.query(sql.insertSubscriptions, subscriptionParams(checkpoint));
    }
    await client.query(sql.insertCheckpoint, checkpointParams(checkpoint));
    return;
  }
}

/** `rewrite` under the instance's row lock: the fence, then {@link decideRewrite} on the stored digest and bytes. */
export async function rewriteCheckpoint(
  client: PgQueryable,
  sql: Statements,
  checkpoint: RewriteCheckpoint,
): Promise<void> {
  const { instanceId, seq } = checkpoint;
  await lockAndFence(client, sql, instanceId, checkpoint.fence);
  const { rows } = await client.query<{ digest: string; document: Uint8Array }>(sql.selectDigestAndDocument, [
    instanceId,
    seq,
  ]);
  const stored = rows[0] && { digest: rows[0].digest, bytes: rows[0].document };
  if (decideRewrite(checkpoint, stored) === 'replay') return;
  await client.query(sql.rewriteCheckpoint, rewriteParams(checkpoint));
}

/**
 * `putWrites` under the instance's row lock (which orders it with puts, rewrites, deletes and other
 * `putWrites` of the instance): the fence, the checkpoint must exist, then the entries in batches, first
 * one wins.
 */
export async function putWrites(
  client: PgQueryable,
  sql: Statements,
  instanceId: string,
  seq: number,
  writes: PendingWrite[],
  fence: Fence | undefined,
): Promise<void> {
  await lockAndFence(client, sql, instanceId, fence);
  const exists = await client.query(sql.checkpointExists, [instanceId, seq]);
  if (exists.rows.length === 0) {
    throw new ConflictError(instanceId, seq, `there is no checkpoint at seq ${seq} to file writes against`);
  }
  for (let start = 0; start < writes.length; start += WRITES_PER_STATEMENT) {
    const batch = writes.slice(start, start + WRITES_PER_STATEMENT);
    const { rows } = await client.query<{ ord: Int8 | null }>(sql.selectMaxWriteOrd, [instanceId, seq]);
    const ord = rows[0]?.ord == null ? -1 : Number(rows[0].ord);
    await client.query(sql.insertWrites(batch.length), writesParams(instanceId, seq, ord, batch));
  }
}

/** The latest checkpoint of an instance, or the one at `seq`, with its entries. */
export async function readCheckpoint(
  client: PgQueryable,
  sql: Statements,
  instanceId: string,
  seq?: number,
): Promise<StoredCheckpoint | undefined> {
  const { rows } =
    seq === undefined
      ? await client.query<CheckpointRow<Int8>>(sql.selectLatest, [instanceId])
      : await client.query<CheckpointRow<Int8>>(sql.selectAtSeq, [instanceId, seq]);
  const row = rows[0];
  if (row === undefined) return undefined;
  const writes = await client.query<WriteRow<Int8>>(sql.selectWritesOf, [instanceId, row.seq]);
  return toStoredCheckpoint(row, writes.rows);
}

/** A page of an instance's history, oldest first. */
export async function readHistory(
  client: PgQueryable,
  sql: Statements,
  instanceId: string,
  options: ListOptions,
): Promise<StoredCheckpoint[]> {
  const { rows } = await client.query<CheckpointRow<Int8>>(sql.selectList, [
    instanceId,
    options.before ?? null,
    options.limit ?? null,
  ]);
  if (rows.length === 0) return [];
  const writes = await client.query<WriteRow<Int8>>(sql.selectWritesBetween, [
    instanceId,
    rows[0]!.seq,
    rows[rows.length - 1]!.seq,
  ]);
  return toStoredCheckpoints(rows, writes.rows);
}

/** `delete` under the instance's row lock: every row of the instance. */
export async function deleteInstance(client: PgQueryable, sql: Statements, instanceId: string): Promise<void> {
  await client.query(sql.lockInstance, [instanceId]);
  await client.query(sql.deleteWrites, [instanceId]);
  await client.query(sql.deleteCheckpoints, [instanceId]);
  await client.query(sql.deleteSubscriptions, [instanceId]);
  // The lease lives on the instance row and goes with it; its token is never handed out again.
  await client.query(sql.deleteInstance, [instanceId]);
}

/**
 * `copy` with the source locked FOR SHARE (its writers wait until the copy commits, other copies do not):
 * {@link decideCopy}, then every row but the lease, instance row first.
 */
export async function copyInstance(
  client: PgQueryable,
  sql: Statements,
  sourceId: string,
  targetId: string,
): Promise<void> {
  const source = await client.query(sql.lockSource, [sourceId]);
  const target = await client.query<LatestSeqRow>(sql.selectLatestSeq, [targetId]);
  const targetLatest = target.rows[0] === undefined ? null : Number(target.rows[0].latest_seq);
  decideCopy(sourceId, targetId, source.rows.length > 0, targetLatest);
  const created = await client.query(sql.copyInstance, [sourceId, targetId]);
  if (created.rowCount === 0) {
    // Created by a concurrent put since we looked: the same refusal, with the seq it has now.
    const now = await client.query<LatestSeqRow>(sql.selectLatestSeq, [targetId]);
    decideCopy(sourceId, targetId, true, Number(now.rows[0]?.latest_seq ?? 0));
  }
  for (const statement of [sql.copyCheckpoints, sql.copyWrites, sql.copySubscriptions]) {
    await client.query(statement, [sourceId, targetId]);
  }
}

/** `prune` under the instance's row lock: the checkpoints (and their entries) older than the `keepLast`-th latest go. */
export async function pruneCheckpoints(
  client: PgQueryable,
  sql: Statements,
  instanceId: string,
  keepLast: number,
): Promise<void> {
  const locked = await client.query(sql.lockInstance, [instanceId]);
  if (locked.rows.length === 0) return;
  const cutoff = await client.query<{ seq: Int8 }>(sql.selectPruneCutoff, [instanceId, keepLast - 1]);
  if (cutoff.rows[0] === undefined) return;
  const oldestKept = cutoff.rows[0].seq;
  await client.query(sql.pruneWrites, [instanceId, oldestKept]);
  await client.query(sql.pruneCheckpoints, [instanceId, oldestKept]);
}
