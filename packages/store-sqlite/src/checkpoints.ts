/**
 * Checkpoints and their journal on SQLite: the bodies of `put`, `rewrite`, `putWrites`, `delete`, `copy` and
 * `prune`, each run inside the BEGIN IMMEDIATE transaction the repository opens (so what they read cannot
 * change before they write), and the reads of `get` and `list`, run in one deferred transaction (one
 * snapshot). Every rule is the shared one of `@thresher/checkpoint/store-kit`.
 */
import type {
  Fence,
  Lease,
  LogEntry,
  PendingWrite,
  PutCheckpoint,
  RewriteCheckpoint,
  StoredCheckpoint,
} from '@thresher/checkpoint';
import {
  type CheckpointRow,
  type CheckpointWithWriteRow,
  checkDeploymentsSeen,
  checkFence,
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
import type { InstanceUpdates } from './instance-update.js';
import { leaseWithPut, nextLease, readHeldLease } from './leases.js';
import {
  checkpointParams,
  heldLease,
  instanceParams,
  type LatestSeqRow,
  type PutStateRow,
  rewriteParams,
} from './rows.js';
import type { Statements } from './statements.js';

/**
 * `put` under the write lock: the fence, then {@link decidePut} on the stored bytes and the latest seq, then
 * the parent link ({@link parentToCheck}), and for a new instance the deployments it was chosen among
 * ({@link checkDeploymentsSeen}); then the instance row, written once with what the put's `claim`
 * or `release` does to the lease. Returns the lease a `claim` took; a first put's takes `createToken` (a
 * token of the connection's reserved block, `CreateTokens`), any other the sequence's next.
 */
export function putCheckpoint(
  sql: Statements,
  updates: InstanceUpdates,
  checkpoint: PutCheckpoint,
  createToken: number | undefined,
): Lease | undefined {
  const { instanceId, seq, meta, claim } = checkpoint;
  const row = sql.selectPutState.get(instanceId) as PutStateRow | undefined;
  checkFence(instanceId, checkpoint.fence, heldLease(row));
  const latest = row === undefined ? null : row.latest_seq;
  // Seqs only grow: past the latest there is no stored document to compare.
  const stored =
    latest === null || seq > latest
      ? undefined
      : (sql.selectDocument.get(instanceId, seq) as { document: Uint8Array } | undefined)?.document;
  if (decidePut(checkpoint, stored, latest) === 'replay') return leaseWithPut(sql, checkpoint, false);
  const parent = parentToCheck(checkpoint, row === undefined ? undefined : row.parent_id);
  if (parent !== null) checkParentStored(checkpoint, sql.instanceExists.get(parent) !== undefined);
  if (row === undefined) {
    if (checkpoint.deploymentsSeen !== undefined) {
      checkDeploymentsSeen(checkpoint, (sql.countDeployments.get() as { stored: number }).stored);
    }
    // The instance row first: checkpoints reference it. A new running instance is stored holding its claim.
    const lease: Lease | undefined =
      claim && meta.status === 'running'
        ? createToken === undefined
          ? nextLease(sql, instanceId, claim.owner, claim.now + claim.ttlMs)
          : { instanceId, owner: claim.owner, token: createToken, expiresAt: claim.now + claim.ttlMs }
        : undefined;
    sql.insertInstance.run(instanceParams(checkpoint, lease));
    insertSubscriptions(sql, checkpoint);
    sql.insertStep.run(checkpointParams(checkpoint));
    return lease;
  }
  const release = checkpoint.release === true && checkpoint.fence !== undefined;
  updates.run(row, instanceParams(checkpoint), release);
  sql.deleteSubscriptions.run(instanceId);
  insertSubscriptions(sql, checkpoint);
  sql.insertStep.run(checkpointParams(checkpoint));
  if (checkpoint.keepLast !== undefined) pruneCheckpoints(sql, instanceId, checkpoint.keepLast);
  return claim ? leaseWithPut(sql, checkpoint, release) : undefined;
}

function insertSubscriptions(sql: Statements, { instanceId, meta }: PutCheckpoint): void {
  for (const [ord, { name, key }] of meta.subscriptions.entries()) {
    sql.insertSubscription.run(instanceId, ord, name, key);
  }
}

/** `rewrite` under the write lock: the fence, then {@link decideRewrite} on the stored digest and bytes. */
export function rewriteCheckpoint(sql: Statements, checkpoint: RewriteCheckpoint): void {
  const { instanceId, seq } = checkpoint;
  checkFence(instanceId, checkpoint.fence, readHeldLease(sql, instanceId));
  const stored = sql.selectDigestAndDocument.get(instanceId, seq) as
    | { digest: string; document: Uint8Array }
    | undefined;
  const current = stored && { digest: stored.digest, bytes: stored.document };
  if (decideRewrite(checkpoint, current) === 'replay') return;
  sql.rewriteCheckpoint.run(rewriteParams(checkpoint));
  if (checkpoint.log !== undefined) sql.insertLogIfNone.run({ instance_id: instanceId, seq, entry: checkpoint.log });
}

/**
 * `putWrites` under the write lock: the fence, the seq must be the latest ({@link checkWritesTarget}), and
 * repeats must be the same bytes ({@link planWrites}); then the new entries. A refusal rolls back the batch.
 */
export function putWrites(
  sql: Statements,
  instanceId: string,
  seq: number,
  writes: PendingWrite[],
  fence: Fence | undefined,
): void {
  checkFence(instanceId, fence, readHeldLease(sql, instanceId));
  const latest = (sql.selectLatestSeq.get(instanceId) as LatestSeqRow | undefined)?.latest_seq ?? null;
  checkWritesTarget(instanceId, seq, latest);
  const filed = (taskId: string, index: number) =>
    (sql.selectWrite.get(instanceId, seq, taskId, index) as { value: Uint8Array } | undefined)?.value;
  const fresh = planWrites(instanceId, seq, writes, filed);
  let ord = (sql.selectMaxWriteOrd.get(instanceId, seq) as { ord: number | null }).ord ?? -1;
  for (const write of fresh) {
    // Only an inserted entry takes an ord; an ignored repeat leaves no gap and moves nothing.
    const { changes } = sql.insertWrite.run(instanceId, seq, write.taskId, write.index, ord + 1, write.value);
    if (changes > 0) ord++;
  }
}

/** The latest checkpoint of an instance, or the one at `seq`, with its entries. */
export function readCheckpoint(sql: Statements, instanceId: string, seq?: number): StoredCheckpoint | undefined {
  const rows = seq === undefined ? sql.selectLatest.all(instanceId) : sql.selectAtSeq.all(instanceId, seq);
  return toStoredCheckpointFromJoined(rows as CheckpointWithWriteRow[]);
}

/** `getMany`: the latest checkpoint of each distinct id of `instanceIds`, in their order, missing ones left out. */
export function readLatest(sql: Statements, instanceIds: readonly string[]): StoredCheckpoint[] {
  const rows = sql.selectLatestOfMany.all({ ids: JSON.stringify(instanceIds) }) as PlacedRow[];
  return toStoredCheckpointsFromJoined(inIdsOrder(rows));
}

/** A row of `selectLatestOfMany`: its id's place among the ids asked for, and its journal entry's (none: null). */
export type PlacedRow = CheckpointWithWriteRow & { at: number; ord: number | null };

/**
 * The rows in the ids' order, each checkpoint's journal entries in filing order: as they came when they already
 * are (the plan's order, which SQL does not promise), else sorted.
 */
export function inIdsOrder(rows: PlacedRow[]): PlacedRow[] {
  const before = (a: PlacedRow, b: PlacedRow) => a.at - b.at || (a.ord ?? -1) - (b.ord ?? -1);
  for (let index = 1; index < rows.length; index++) {
    if (before(rows[index - 1]!, rows[index]!) > 0) return [...rows].sort(before);
  }
  return rows;
}

/** A page of an instance's history ({@link historyRange} of `list`'s options), in its order. */
export function readHistory(sql: Statements, instanceId: string, range: HistoryRange): StoredCheckpoint[] {
  const statement = range.order === 'desc' ? sql.selectHistoryDesc : sql.selectHistory;
  // Below kept_from only log entries are left: the range starts past them rather than walking them.
  const keptFrom = (sql.selectKeptFrom.get(instanceId) as { kept_from: number | null } | undefined)?.kept_from;
  const after = Math.max(range.after ?? Number.NEGATIVE_INFINITY, (keptFrom ?? Number.NEGATIVE_INFINITY) - 1);
  const rows = statement.all({
    instance_id: instanceId,
    after,
    before: range.before ?? Number.POSITIVE_INFINITY,
    limit: range.limit ?? -1,
  }) as CheckpointRow[];
  if (rows.length === 0) return [];
  const [first, last] = [rows[0]!.seq, rows[rows.length - 1]!.seq];
  const writes = sql.selectWritesBetween.all(instanceId, Math.min(first, last), Math.max(first, last)) as WriteRow[];
  return toStoredCheckpoints(rows, writes);
}

/** `history`: log entries after position `after`, all instances' or one's, in position (rowid) order. */
export function readLog(sql: Statements, after: number, instanceId: string | null, limit: number | null): LogEntry[] {
  const bounds = { after, limit: limit ?? -1 };
  const rows = (
    instanceId === null ? sql.selectLog.all(bounds) : sql.selectLogOf.all({ ...bounds, instance_id: instanceId })
  ) as (LogRow & { position: number })[];
  return rows.map((row) => toLogEntry(row, String(row.position)));
}

/** `delete`: every row of the instance, explicitly (the cascades are a second line of defence). */
export function deleteInstance(sql: Statements, instanceId: string): void {
  sql.raisePositionFloor.run();
  sql.raiseSerialFloor.run();
  sql.deleteWrites.run(instanceId);
  sql.deleteSteps.run(instanceId);
  sql.deleteSubscriptions.run(instanceId);
  sql.deleteJobs.run(instanceId);
  sql.deleteInstance.run(instanceId);
}

/** `copy` under the write lock: {@link decideCopy}, then every row but the lease, instance row first. */
export function copyInstance(sql: Statements, sourceId: string, targetId: string): void {
  const source = sql.selectLatestSeq.get(sourceId) as LatestSeqRow | undefined;
  const target = sql.selectLatestSeq.get(targetId) as LatestSeqRow | undefined;
  decideCopy(sourceId, targetId, source !== undefined, target?.latest_seq ?? null);
  const ids = { source: sourceId, target: targetId };
  // The instance row first: the others reference it. The lease is not copied.
  sql.copyInstance.run(ids);
  sql.copySteps.run(ids);
  sql.copyWrites.run(ids);
  sql.copySubscriptions.run(ids);
}

/**
 * `prune`: the checkpoints (and their journal entries) older than the `keepLast`-th latest go; their steps' log
 * entries stay, each a row of its own again at its position. Only the steps from kept_from on are visited, and
 * kept_from moves up to the cutoff.
 */
export function pruneCheckpoints(sql: Statements, instanceId: string, keepLast: number): void {
  const found = sql.selectPruneCutoff.get({ instance_id: instanceId, offset: keepLast - 1 }) as
    | { seq: number; kept_from: number | null }
    | undefined;
  if (found === undefined || (found.kept_from !== null && found.kept_from >= found.seq)) return;
  const range = { instance_id: instanceId, from: found.kept_from ?? Number.NEGATIVE_INFINITY, cutoff: found.seq };
  sql.pruneWrites.run(instanceId, found.seq);
  const pruned = sql.pruneSteps.all(range) as { position: number; seq: number; entry: Uint8Array | null }[];
  for (const { position, seq, entry } of pruned) {
    if (entry !== null) sql.insertEntry.run({ position, instance_id: instanceId, seq, entry });
  }
  sql.setKeptFrom.run(range);
}
