/**
 * Checkpoints and their journal in memory: `put`, `rewrite`, `putWrites`, `get`, `list`, `delete`, `copy`
 * and `prune`. Each write checks its arguments, then every rule on what is stored, and builds what it
 * stores, before it changes anything: a refusal at any point leaves the store exactly as it was, as a
 * rolled-back transaction leaves a SQL store.
 */
import { checkPutArguments, checkRewriteArguments, checkText, checkWritesArguments } from '../input-rules.js';
import {
  checkDeploymentsSeen,
  checkFence,
  checkKeepLast,
  checkParentStored,
  checkWritesTarget,
  decideCopy,
  decidePut,
  decideRewrite,
  parentToCheck,
  planWrites,
} from '../put-rules.js';
import { historyRange, integerPosition, logRead, rootIdOf } from '../read-rules.js';
import type {
  Fence,
  HistoryQuery,
  ListOptions,
  LogEntry,
  PendingWrite,
  PutCheckpoint,
  RewriteCheckpoint,
  StoredCheckpoint,
} from '../repository-types.js';
import {
  type CheckpointEntry,
  copyBytes,
  copyMeta,
  copyWrite,
  type InstanceEntry,
  type LogRecord,
  type MemoryState,
  toStored,
  writeKey,
} from './state.js';

export function putCheckpoint(state: MemoryState, checkpoint: PutCheckpoint): void {
  checkPutArguments(checkpoint);
  const { instanceId, seq, parentSeq } = checkpoint;
  const instance = state.instances.get(instanceId);
  checkFence(instanceId, checkpoint.fence, instance?.lease);
  const stored = instance?.checkpoints.get(seq)?.bytes;
  if (decidePut(checkpoint, stored, instance?.latestSeq ?? null) === 'replay') return;
  const parent = parentToCheck(checkpoint, instance?.meta.parentId);
  if (parent !== null) checkParentStored(checkpoint, state.instances.has(parent));
  if (instance === undefined) checkDeploymentsSeen(checkpoint, state.deploymentsInOrder.length);
  const entry: CheckpointEntry = {
    seq,
    parentSeq,
    schema: checkpoint.schema,
    definitionDigest: checkpoint.definitionDigest,
    digest: checkpoint.digest,
    bytes: copyBytes(checkpoint.bytes),
    writes: [],
    filed: new Map(),
  };
  const { parentId } = checkpoint.meta;
  // Derived when the link is made, then kept: deleting an ancestor leaves it as it was.
  const rootId =
    instance !== undefined && instance.meta.parentId === parentId
      ? instance.rootId
      : rootIdOf(instanceId, parentId, parentId === null ? undefined : state.instances.get(parentId)?.rootId);
  const next: InstanceEntry = {
    checkpoints: instance?.checkpoints ?? new Map<number, CheckpointEntry>(),
    log: instance?.log ?? new Map<number, LogRecord>(),
    latestSeq: seq,
    definitionDigest: checkpoint.definitionDigest,
    meta: copyMeta(checkpoint.meta),
    rootId,
    serial: instance?.serial ?? state.lastSerial + 1,
  };
  if (instance?.lease !== undefined) next.lease = instance.lease;
  const log = checkpoint.log === undefined ? undefined : copyBytes(checkpoint.log);
  // Nothing below throws: the store changes only once everything is decided and built.
  next.checkpoints.set(seq, entry);
  if (log !== undefined) next.log.set(seq, { position: ++state.lastPosition, bytes: log });
  state.instances.set(instanceId, next);
  state.lastSerial = Math.max(state.lastSerial, next.serial);
  if (checkpoint.keepLast !== undefined) pruneEntries(next, checkpoint.keepLast);
}

export function rewriteCheckpoint(state: MemoryState, checkpoint: RewriteCheckpoint): void {
  checkRewriteArguments(checkpoint);
  const { instanceId, seq } = checkpoint;
  const instance = state.instances.get(instanceId);
  checkFence(instanceId, checkpoint.fence, instance?.lease);
  const entry = instance?.checkpoints.get(seq);
  if (decideRewrite(checkpoint, entry) === 'replay' || entry === undefined) return;
  const bytes = copyBytes(checkpoint.bytes);
  const log = checkpoint.log === undefined || instance!.log.has(seq) ? undefined : copyBytes(checkpoint.log);
  // In place: parentSeq, writes, definitionDigest and the instance's index are not the rewrite's to change.
  entry.schema = checkpoint.schema;
  entry.digest = checkpoint.digest;
  entry.bytes = bytes;
  if (log !== undefined) instance!.log.set(seq, { position: ++state.lastPosition, bytes: log });
}

export function putWrites(
  state: MemoryState,
  instanceId: string,
  seq: number,
  writes: PendingWrite[],
  fence: Fence | undefined,
): void {
  checkWritesArguments(instanceId, seq, writes);
  const instance = state.instances.get(instanceId);
  checkFence(instanceId, fence, instance?.lease);
  checkWritesTarget(instanceId, seq, instance?.latestSeq ?? null);
  const entry = instance!.checkpoints.get(seq)!;
  const fresh = planWrites(instanceId, seq, writes, (taskId, index) => entry.filed.get(writeKey(taskId, index)));
  const copies = fresh.map(copyWrite);
  // The whole batch is decided: file it.
  for (const write of copies) {
    entry.filed.set(writeKey(write.taskId, write.index), write.value);
    entry.writes.push(write);
  }
}

export function readCheckpoint(state: MemoryState, instanceId: string, seq?: number): StoredCheckpoint | undefined {
  const instance = state.instances.get(instanceId);
  if (instance === undefined) return undefined;
  const at = seq ?? instance.latestSeq;
  const entry = instance.checkpoints.get(at);
  return entry === undefined ? undefined : toStored(instanceId, entry, instance.log.get(at));
}

/** `getMany`: the latest checkpoint of each instance asked, in order, each once, missing ones left out. */
export function readLatest(state: MemoryState, instanceIds: readonly string[]): StoredCheckpoint[] {
  const found: StoredCheckpoint[] = [];
  for (const instanceId of new Set(instanceIds)) {
    const stored = readCheckpoint(state, instanceId);
    if (stored !== undefined) found.push(stored);
  }
  return found;
}

export function readHistory(state: MemoryState, instanceId: string, options: ListOptions = {}): StoredCheckpoint[] {
  const { order, after, before, limit } = historyRange(options);
  const instance = state.instances.get(instanceId);
  if (instance === undefined) return [];
  // Insertion order is seq order.
  const entries = [...instance.checkpoints.values()].filter(
    ({ seq }) => (after === null || seq > after) && (before === null || seq < before),
  );
  if (order === 'desc') entries.reverse();
  return entries
    .slice(0, limit ?? entries.length)
    .map((entry) => toStored(instanceId, entry, instance.log.get(entry.seq)));
}

/** `history`: the log entries after a position, all instances' or one's, in position order. */
export function readLog(state: MemoryState, query: HistoryQuery = {}): LogEntry[] {
  const { after, instanceId, limit } = logRead(query);
  const after_ = after === null ? 0 : integerPosition(after);
  const found: (LogEntry & { at: number })[] = [];
  const instances = instanceId === null ? state.instances : new Map([[instanceId, state.instances.get(instanceId)]]);
  for (const [id, instance] of instances) {
    if (instance === undefined) continue;
    for (const [seq, { position, bytes }] of instance.log) {
      if (position <= after_) continue;
      found.push({ instanceId: id, seq, position: String(position), bytes: copyBytes(bytes), at: position });
    }
  }
  found.sort((a, b) => a.at - b.at);
  return found.slice(0, limit ?? found.length).map(({ at: _at, ...entry }) => entry);
}

export function deleteInstance(state: MemoryState, instanceId: string): void {
  state.instances.delete(instanceId);
  state.jobs.delete(instanceId);
}

export function copyInstance(state: MemoryState, sourceId: string, targetId: string): void {
  checkText('targetId', targetId);
  const source = state.instances.get(sourceId);
  decideCopy(sourceId, targetId, source !== undefined, state.instances.get(targetId)?.latestSeq ?? null);
  if (source === undefined) return;
  const checkpoints = new Map<number, CheckpointEntry>();
  for (const [seq, entry] of source.checkpoints) {
    const writes = entry.writes.map(copyWrite);
    checkpoints.set(seq, {
      ...entry,
      bytes: copyBytes(entry.bytes),
      writes,
      filed: new Map(writes.map((write) => [writeKey(write.taskId, write.index), write.value])),
    });
  }
  const log = new Map<number, LogRecord>();
  for (const [seq, { bytes }] of source.log) log.set(seq, { position: ++state.lastPosition, bytes: copyBytes(bytes) });
  // The lease stays with the source: the copy is unclaimed.
  // The copy keeps the source's parent, so its root is derived as a put's would be: a copied root roots itself.
  state.instances.set(targetId, {
    checkpoints,
    log,
    latestSeq: source.latestSeq,
    definitionDigest: source.definitionDigest,
    meta: copyMeta(source.meta),
    rootId: source.meta.parentId === null ? targetId : source.rootId,
    serial: ++state.lastSerial,
  });
}

export function pruneCheckpoints(state: MemoryState, instanceId: string, keepLast: number): void {
  checkKeepLast(keepLast);
  const instance = state.instances.get(instanceId);
  if (instance !== undefined) pruneEntries(instance, keepLast);
}

/** All but the latest `keepLast` checkpoints go; the log stays. */
function pruneEntries(instance: InstanceEntry, keepLast: number): void {
  let excess = instance.checkpoints.size - keepLast;
  // Insertion order is seq order, so the first entries are the oldest.
  for (const seq of instance.checkpoints.keys()) {
    if (excess-- <= 0) break;
    instance.checkpoints.delete(seq);
  }
}
