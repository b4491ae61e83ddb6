/**
 * What the memory repository holds, and the copies it makes on the way in and out: neither a caller's buffer
 * nor a returned one can change what is stored.
 */

import type { QueuedJob } from '../job-rules.js';
import type { HeldLease } from '../put-rules.js';
import type {
  BufferedMessage,
  Deployment,
  InstanceMeta,
  LogReader,
  PendingWrite,
  StoredCheckpoint,
} from '../repository-types.js';
import type { SearchRow } from '../search-rows.js';

/** A stored checkpoint (its writes in filing order), and what a repeated journal entry is compared with. */
export interface CheckpointEntry extends Omit<StoredCheckpoint, 'instanceId' | 'log'> {
  /** The value filed at each (taskId, index), keyed by {@link writeKey}. */
  filed: Map<string, Uint8Array>;
}

/** A log entry a put filed: where it stands in the store's log (one past the one before), and its bytes. */
export interface LogRecord {
  position: number;
  bytes: Uint8Array;
}

export interface InstanceEntry {
  /** Keyed by seq; `put` only appends seqs above the latest, so insertion order is seq order. */
  checkpoints: Map<number, CheckpointEntry>;
  /** Log entries by the seq whose put (or rewrite) filed them; insertion order is position order. */
  log: Map<number, LogRecord>;
  latestSeq: number;
  definitionDigest: string;
  meta: InstanceMeta;
  /** The root of its call tree (`rootIdOf`), derived when the instance is created or its parent changes. */
  rootId: string;
  /** Its number in this store (`InstanceSummary.serial`), assigned when it was created. */
  serial: number;
  /** The held lease; absent when none is held. */
  lease?: HeldLease;
}

export interface MessageEntry {
  message: BufferedMessage;
  /** Who took it and has not yet deleted it; null while no one holds it. */
  taker: string | null;
}

/** Everything one memory repository holds. */
export interface MemoryState {
  instances: Map<string, InstanceEntry>;
  deploymentsInOrder: Deployment[];
  deploymentsByDigest: Map<string, Deployment>;
  messages: Map<string, MessageEntry>;
  /** The last fencing token handed out, store-wide: tokens are never reused, not even after a delete. */
  lastToken: number;
  /** The last log position handed out (`history`), never reused either. */
  lastPosition: number;
  /** The last instance serial handed out, never reused either. */
  lastSerial: number;
  /** The registered readers of the log, by name. */
  readers: Map<string, LogReader>;
  /** Jobs queued for outside workers (`offerJob`), by instance and job id; they go with their instance. */
  jobs: Map<string, Map<string, QueuedJob>>;
  /** The last place in the job queue handed out. */
  lastJobRank: number;
  /** Search rows by kind and key (`putRows`), and each projection's position; independent of the instances. */
  rows: Map<string, Map<string, SearchRow>>;
  projections: Map<string, string>;
}

export function emptyState(): MemoryState {
  return {
    instances: new Map(),
    deploymentsInOrder: [],
    deploymentsByDigest: new Map(),
    messages: new Map(),
    lastToken: 0,
    lastPosition: 0,
    lastSerial: 0,
    readers: new Map(),
    jobs: new Map(),
    lastJobRank: 0,
    rows: new Map(),
    projections: new Map(),
  };
}

/** The key of a journal entry's (taskId, index); task ids never hold U+0000, so it separates the parts. */
export function writeKey(taskId: string, index: number): string {
  return `${taskId}\u0000${index}`;
}

export function toStored(instanceId: string, entry: CheckpointEntry, log: LogRecord | undefined): StoredCheckpoint {
  const stored: StoredCheckpoint = {
    instanceId,
    seq: entry.seq,
    parentSeq: entry.parentSeq,
    schema: entry.schema,
    definitionDigest: entry.definitionDigest,
    digest: entry.digest,
    bytes: copyBytes(entry.bytes),
    writes: entry.writes.map(copyWrite),
  };
  if (log !== undefined) stored.log = copyBytes(log.bytes);
  return stored;
}

/** A copy of indexed meta, `endedAt` null when it was put without one. */
export function copyMeta(meta: InstanceMeta): InstanceMeta {
  return {
    ...meta,
    subscriptions: meta.subscriptions.map(({ name, key }) => ({ name, key })),
    endedAt: meta.endedAt ?? null,
  };
}

export function copyMessage(message: BufferedMessage): BufferedMessage {
  return {
    id: message.id,
    name: message.name,
    correlationKey: message.correlationKey,
    variables: copyBytes(message.variables),
    publishedAt: message.publishedAt,
    expiresAt: message.expiresAt,
  };
}

export function copyWrite(write: PendingWrite): PendingWrite {
  return { taskId: write.taskId, index: write.index, value: copyBytes(write.value) };
}

/** A plain `Uint8Array` copy; `new Uint8Array(view)` copies even when handed a Node `Buffer`. */
export function copyBytes(bytes: Uint8Array): Uint8Array {
  // `set` copies the block at once; the constructor walks a Buffer element by element.
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return copy;
}
