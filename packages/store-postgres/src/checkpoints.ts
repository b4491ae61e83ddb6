/**
 * Checkpoints and their journal on PostgreSQL: the bodies of `put`, `rewrite`, `putWrites`, `delete`, `copy`
 * and `prune`, each run inside the READ COMMITTED transaction the repository opens and first locking the
 * instance's row (the lock every writer of the instance queues on), and the reads: `get` one statement,
 * `list` in one REPEATABLE READ snapshot. Every rule is the shared one of `@thresher/checkpoint/store-kit`.
 */
import {
  type Fence,
  isStorableText,
  type Lease,
  type LogEntry,
  type PendingWrite,
  type PutCheckpoint,
  type RewriteCheckpoint,
  type StoredCheckpoint,
} from '@thresher/checkpoint';
import {
  assertStoreNotUpgraded,
  type CheckpointRow,
  type CheckpointWithWriteRow,
  checkDeploymentsSeen,
  checkParentStored,
  checkWritesTarget,
  decideCopy,
  decidePut,
  decideRewrite,
  type HistoryRange,
  type LogRow,
  parentToCheck,
  planWrites,
  toLogEntry,
  toStoredCheckpointFromJoined,
  toStoredCheckpoints,
  toStoredCheckpointsFromJoined,
  type WriteRow,
} from '@thresher/checkpoint/store-kit';
import type { PgPreparingQueryable, PgQueryable } from './driver.js';
import { lockAndFence } from './leases.js';
import { SCHEMA_VERSION } from './migrations.js';
import {
  carriesDeploymentsSeen,
  checkpointParams,
  type Int8,
  instanceParams,
  type LatestSeqRow,
  type PutFunctionRow,
  putFunctionParams,
  rewriteParams,
  subscriptionParams,
  toLease,
  writesParams,
} from './rows.js';
import type { PutFunctionCall, Statements } from './statements.js';

/** Most journal entries bound in one INSERT: three parameters each, well below PostgreSQL's 65,535. */
const WRITES_PER_STATEMENT = 1000;
/** Most value bytes bound in one INSERT, so that a batch of large entries stays far below a message's 1 GB. */
const WRITE_BYTES_PER_STATEMENT = 64 * 1024 * 1024;

/** What {@link putInOneStatement} did: stored (with the lease a claim took), or left it to {@link putCheckpoint}. */
export type OneStatementPut = { stored: true; lease: Lease | undefined } | { stored: false };

/**
 * The common `put` in one statement (`put_checkpoint`, put-function-v8.ts): an instance's first
 * checkpoint or the next one under the held lease, with its claim or release, behind the schema fence.
 * Anything else (a replay, a refusal, a parent link to check again, a concurrent creator) is not stored: the
 * full path decides it. Alone, the statement runs in autocommit: one round trip, commit included.
 *
 * @throws StoreUpgradedError (via `assertStoreNotUpgraded`) when a newer build migrated the schema
 */
export async function putInOneStatement(
  db: PgQueryable,
  call: PutFunctionCall,
  checkpoint: PutCheckpoint,
): Promise<OneStatementPut> {
  if (!fenceComparable(checkpoint)) return { stored: false };
  const { name, text } = carriesDeploymentsSeen(checkpoint) ? call.statements.seen : call.statements.put;
  const values = putFunctionParams(checkpoint, call.lockKey, SCHEMA_VERSION);
  // A named statement only where the repository was told the pool takes pg's query-config form.
  const { rows } =
    name === undefined
      ? await db.query<PutFunctionRow>(text, values)
      : await (db as PgQueryable & PgPreparingQueryable).query<PutFunctionRow>({ name, text, values });
  return oneStatementOutcome(rows[0], checkpoint, call.where);
}

/**
 * Whether the server can compare the put's fence as checkFence does: text it would alter, or a token no
 * BIGINT holds, matches no lease, and the full path refuses it.
 */
export function fenceComparable(checkpoint: PutCheckpoint): boolean {
  const { fence } = checkpoint;
  return fence === undefined || (isStorableText(fence.owner) && Number.isSafeInteger(fence.token));
}

/**
 * What `put_checkpoint`'s answer to a put means: stored (with the lease a claim took), or left to the full
 * rules.
 *
 * @throws StoreUpgradedError (via `assertStoreNotUpgraded`) when a newer build migrated the schema
 */
export function oneStatementOutcome(
  row: PutFunctionRow | undefined,
  checkpoint: PutCheckpoint,
  where: string,
): OneStatementPut {
  if (row?.outcome === 'upgraded') assertStoreNotUpgraded(where, Number(row.schema_version), SCHEMA_VERSION);
  if (row?.outcome !== 'stored') return { stored: false };
  return storedPut(row, checkpoint);
}

/** A put the server stored, with the lease its claim took (none when the claim took none). */
export function storedPut(
  row: Pick<PutFunctionRow, 'claimed_token' | 'claimed_expires_at'>,
  checkpoint: PutCheckpoint,
): OneStatementPut {
  const { claim, instanceId } = checkpoint;
  const lease =
    claim === undefined || row.claimed_token === null || row.claimed_expires_at === null
      ? undefined
      : toLease(
          { instance_id: instanceId, lease_token: row.claimed_token, lease_expires_at: row.claimed_expires_at },
          claim.owner,
        );
  return { stored: true, lease };
}

/**
 * `put` under the instance's row lock: the fence, then {@link decidePut} on what the lock holder sees, then
 * the parent link ({@link parentToCheck}; a parent deleted meanwhile is as if deleted just after), and for a
 * new instance the deployments it was chosen among ({@link checkDeploymentsSeen}). The
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
    // Seqs only grow: past the latest there is no stored document to compare (one round trip saved).
    const stored =
      latest === null || seq > latest
        ? undefined
        : (await client.query<{ document: Uint8Array }>(sql.selectDocument, [instanceId, seq])).rows[0]?.document;
    if (decidePut(checkpoint, stored, latest) === 'replay') return;
    const indexed = latest === null ? undefined : (locked?.parent_id ?? null);
    const parent = parentToCheck(checkpoint, indexed);
    if (parent !== null) {
      checkParentStored(checkpoint, (await client.query(sql.instanceExists, [parent])).rows.length > 0);
    }
    if (latest === null && checkpoint.deploymentsSeen !== undefined) {
      const { rows } = await client.query<{ stored: Int8 }>(sql.countDeployments, []);
      checkDeploymentsSeen(checkpoint, Number(rows[0]!.stored));
    }
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
    if (checkpoint.log !== undefined) await client.query(sql.insertLog, [instanceId, seq, checkpoint.log]);
    if (checkpoint.keepLast !== undefined && latest !== null) {
      await pruneLocked(client, sql, instanceId, checkpoint.keepLast);
    }
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
  if (checkpoint.log !== undefined) await client.query(sql.insertLogIfNone, [instanceId, seq, checkpoint.log]);
}

/**
 * `putWrites` under the instance's row lock (which orders it with puts, rewrites, deletes and other
 * `putWrites` of the instance): the fence, the seq must be the latest ({@link checkWritesTarget}), repeats
 * must be the same bytes ({@link planWrites}); then the new entries, in statements of bounded size. A
 * refusal rolls the whole call back.
 */
export async function putWrites(
  client: PgQueryable,
  sql: Statements,
  instanceId: string,
  seq: number,
  writes: PendingWrite[],
  fence: Fence | undefined,
): Promise<void> {
  const locked = await lockAndFence(client, sql, instanceId, fence);
  checkWritesTarget(instanceId, seq, locked === undefined ? null : Number(locked.latest_seq));
  if (writes.length === 0) return;
  const { rows: found } = await client.query<{ task_id: string; idx: Int8; value: Uint8Array }>(sql.selectFiledWrites, [
    instanceId,
    seq,
    writes.map(({ taskId }) => taskId),
    writes.map(({ index }) => index),
  ]);
  // Task ids never hold U+0000, so it separates the two parts of a key.
  const filed = new Map(found.map((row) => [`${row.task_id}\u0000${Number(row.idx)}`, row.value]));
  const fresh = planWrites(instanceId, seq, writes, (taskId, index) => filed.get(`${taskId}\u0000${index}`));
  for (const batch of statementBatches(fresh)) {
    const { rows } = await client.query<{ ord: Int8 | null }>(sql.selectMaxWriteOrd, [instanceId, seq]);
    const ord = rows[0]?.ord == null ? -1 : Number(rows[0].ord);
    await client.query(sql.insertWrites(batch.length), writesParams(instanceId, seq, ord, batch));
  }
}

/** Entries split into INSERTs of at most {@link WRITES_PER_STATEMENT} entries and about 64 MiB of values. */
function statementBatches(writes: readonly PendingWrite[]): PendingWrite[][] {
  const batches: PendingWrite[][] = [];
  let batch: PendingWrite[] = [];
  let bytes = 0;
  for (const write of writes) {
    const full = batch.length >= WRITES_PER_STATEMENT || bytes + write.value.byteLength > WRITE_BYTES_PER_STATEMENT;
    if (batch.length > 0 && full) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(write);
    bytes += write.value.byteLength;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
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
      ? await client.query<CheckpointWithWriteRow<Int8>>(sql.selectLatest, [instanceId])
      : await client.query<CheckpointWithWriteRow<Int8>>(sql.selectAtSeq, [instanceId, seq]);
  return toStoredCheckpointFromJoined(rows);
}

/** `getMany`: the latest checkpoint of each distinct id of `instanceIds`, in their order, missing ones left out. */
export async function readLatest(
  client: PgQueryable,
  sql: Statements,
  instanceIds: readonly string[],
): Promise<StoredCheckpoint[]> {
  const { rows } = await client.query<CheckpointWithWriteRow<Int8>>(sql.selectLatestOfMany, [instanceIds]);
  return toStoredCheckpointsFromJoined(rows);
}

/** A page of an instance's history ({@link historyRange} of `list`'s options), in its order. */
export async function readHistory(
  client: PgQueryable,
  sql: Statements,
  instanceId: string,
  range: HistoryRange,
): Promise<StoredCheckpoint[]> {
  const statement = range.order === 'desc' ? sql.selectHistoryDesc : sql.selectHistory;
  const { rows } = await client.query<CheckpointRow<Int8>>(statement, [
    instanceId,
    range.after,
    range.before,
    range.limit,
  ]);
  if (rows.length === 0) return [];
  const [first, last] = [Number(rows[0]!.seq), Number(rows[rows.length - 1]!.seq)];
  const writes = await client.query<WriteRow<Int8>>(sql.selectWritesBetween, [
    instanceId,
    Math.min(first, last),
    Math.max(first, last),
  ]);
  return toStoredCheckpoints(rows, writes.rows);
}

/** A PostgreSQL position: the writing transaction's id and the row's serial, `<tx>-<serial>`. */
const POSITION = /^([0-9]{1,20})-([0-9]{1,19})$/;

/** `history`: committed log entries after a position (as {@link positionParams} read it), in (tx, serial) order. */
export async function readLog(
  client: PgQueryable,
  sql: Statements,
  after: [string | null, string | null],
  instanceId: string | null,
  limit: number | null,
): Promise<LogEntry[]> {
  const { rows } = await client.query<LogRow<Int8> & { tx: string; position: Int8 }>(sql.selectLog, [
    ...after,
    instanceId,
    limit,
  ]);
  return rows.map((row) => toLogEntry(row, positionOf(row.tx, row.position)));
}

/** A position as this store writes it, `<tx>-<serial>`. */
export function positionOf(tx: string, position: Int8): string {
  return `${tx}-${String(position)}`;
}

/**
 * A position as the log query's two parameters.
 *
 * @throws RangeError when it is not a position of this store
 */
export function positionParams(after: string | null): [string | null, string | null] {
  if (after === null) return [null, null];
  const match = POSITION.exec(after);
  if (match === null) throw new RangeError(`"${after}" is not a position of this store's history`);
  return [match[1]!, match[2]!];
}

/** `delete` under the instance's row lock: every row of the instance. */
export async function deleteInstance(client: PgQueryable, sql: Statements, instanceId: string): Promise<void> {
  await client.query(sql.lockInstance, [instanceId]);
  await client.query(sql.deleteLog, [instanceId]);
  await client.query(sql.deleteWrites, [instanceId]);
  await client.query(sql.deleteCheckpoints, [instanceId]);
  await client.query(sql.deleteSubscriptions, [instanceId]);
  await client.query(sql.deleteJobs, [instanceId]);
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
  for (const statement of [sql.copyCheckpoints, sql.copyLog, sql.copyWrites, sql.copySubscriptions]) {
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
  await pruneLocked(client, sql, instanceId, keepLast);
}

/** The pruning itself, under the instance's row lock the caller holds. */
async function pruneLocked(client: PgQueryable, sql: Statements, instanceId: string, keepLast: number): Promise<void> {
  const cutoff = await client.query<{ seq: Int8 }>(sql.selectPruneCutoff, [instanceId, keepLast - 1]);
  if (cutoff.rows[0] === undefined) return;
  const oldestKept = cutoff.rows[0].seq;
  await client.query(sql.pruneWrites, [instanceId, oldestKept]);
  await client.query(sql.pruneCheckpoints, [instanceId, oldestKept]);
}
