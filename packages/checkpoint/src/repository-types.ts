/**
 * What the repository contract's calls take and give (`repository.ts`): puts and their claims, leases and
 * fences, queries and pages, log entries and readers, deployments, buffered messages.
 */
import type { InstanceStatus } from './types.js';

/** A message an instance waits on: its name, and its correlation key (null when the message has none). */
export interface MessageSubscription {
  name: string;
  key: string | null;
}

/** What a repository indexes about an instance so discovery never decodes documents. */
export interface InstanceMeta {
  status: InstanceStatus;
  processId: string;
  definitionId: string;
  businessKey: string | null;
  /**
   * A called child's parent instance; null for a root. Set together with `callNodeId`, and stored when a put
   * makes the link (`ParentLinkError` otherwise).
   */
  parentId: string | null;
  /** The call activity of the parent that started this child; null for a root. */
  callNodeId: string | null;
  /** Epoch ms of the instance's earliest due timer; null when it has none. Indexed for `dueTimers`. */
  dueAt: number | null;
  /**
   * The messages the instance waits on, indexed for `subscriptions`. Stores return the list as it was put:
   * same order, repeats kept.
   */
  subscriptions: MessageSubscription[];
  /**
   * Epoch ms the instance ended (the engine's clock); null or absent while it runs. What `expire` judges an
   * ended instance's age by: an ended instance put without it never expires. Stores return null for absent.
   */
  endedAt?: number | null;
}

/**
 * Proof that a write is made under an instance's lease: the owner that claimed it and the fencing token the
 * claim handed out. A store refuses a fenced write once the lease has moved on (`LeaseLostError`).
 */
export interface Fence {
  owner: string;
  token: number;
}

/** An instance's lease as `claim` and `renew` hand it out. */
export interface Lease extends Fence {
  instanceId: string;
  /** Epoch ms (on the caller's clock) from which another owner may claim the instance. */
  expiresAt: number;
  /**
   * Set only on a lease `claim` took over from a lease still held (lapsed, or its owner in `takeOver`): that
   * lease's owner. Its holder stopped without letting go, so what it did after its last write may not have
   * left (the engine publishes that write's events again). Absent when the instance was not held.
   */
  takenFrom?: string;
}

/** What `claim` looks for and on whose behalf. */
export interface ClaimOptions {
  /** Names the node claiming; any string, compared exactly. */
  owner: string;
  /** How long the leases last from `now`, in ms; positive. */
  ttlMs: number;
  /** The caller's clock, epoch ms: stores read no clock of their own. */
  now: number;
  /** At most this many leases. */
  limit: number;
  /** Only these instances (ids the store does not have, or that are not running, are skipped). */
  instanceIds?: string[];
  /**
   * Owners known to be gone (a process of this host that has exited): a lease one of them holds is
   * claimable even while live, as if it had lapsed — the new token fences that owner's late writes.
   */
  takeOver?: string[];
  /**
   * Only work a holder left behind: instances whose lease is held but lapsed at `now` (or held by an owner in
   * `takeOver`), ended ones included — an ended instance still holding a lease is one whose engine died
   * before delivering what its end owes (a called child's end to its parent). Instances with no lease at all
   * (parked ones a dehydrating engine released) are skipped.
   */
  lapsedOnly?: boolean;
}

/**
 * Which part of the store's log `history` reads: every instance's log entries in the order the store committed
 * them, or one instance's.
 */
export interface HistoryQuery {
  /** Only entries after this position (exclusive), as an earlier `history` returned it. */
  after?: string;
  instanceId?: string;
  /** Page size: a non-negative safe integer; all when absent. */
  limit?: number;
}

/** A log entry as `history` returns it: the step it records, where it stands in the store's log, its bytes. */
export interface LogEntry {
  instanceId: string;
  /** The seq of the checkpoint whose put filed it. */
  seq: number;
  /**
   * Opaque, and only this store's: a later entry (committed after this one) has a later position. Pass it as
   * `after` to read on. Never handed out twice, not even after the entry holding it was deleted.
   */
  position: string;
  /** The entry's bytes, as the put handed them over (`PutCheckpoint.log`). */
  bytes: Uint8Array;
}

/**
 * A registered reader of the store's log (`putReader`), and how far it has read: `expire` deletes no instance
 * with an entry it may not have read whole.
 */
export interface LogReader {
  /** Any text a store keeps (at most `MAX_TEXT_BYTES`); compared exactly. */
  name: string;
  /**
   * The position (as `history` returned it) of the last entry the reader has read whole: it and the entries before
   * it are read, the ones after it may not be. Null: it has read no entry whole yet.
   */
  position: string | null;
  /** Where the reader goes on from, as its owner wrote it (opaque to the store); null for none. */
  cursor: string | null;
}

/** What `expire` deletes. */
export interface ExpireOptions {
  /** Epoch ms: only instances that ended at or before it (`InstanceMeta.endedAt`). */
  endedBefore: number;
  /** At most this many instances: a positive safe integer. */
  limit: number;
}

/** A running instance whose earliest timer is due. */
export interface DueTimer {
  instanceId: string;
  dueAt: number;
}

export interface PruneOptions {
  /** How many of the latest checkpoints to keep, at least 1 (the latest is what a restore reads). */
  keepLast: number;
}

/**
 * A message kept for a subscription that does not exist yet: `correlateMessage` with a time-to-live buffers a
 * message nothing waits for, and the first instance to subscribe to its name and key within that time takes it.
 */
export interface BufferedMessage {
  /** Unique among stored messages: putting a message whose id is stored is a no-op. */
  id: string;
  name: string;
  /** The correlation key; null when the message has none (it then matches only subscriptions without one). */
  correlationKey: string | null;
  /** The canonical encoding of the message's variables. Stores keep these bytes verbatim. */
  variables: Uint8Array;
  /** Epoch ms (the caller's clock) the message was published at: messages are taken oldest first. */
  publishedAt: number;
  /** Epoch ms from which the message is expired: `takeMessage` no longer hands it out, `expireMessages` deletes it. */
  expiresAt: number;
}

/**
 * A job that waits for a worker outside the engine (`offerJob`): what `activateJobs` finds it by. The
 * instance's checkpoint holds the job itself; this is only its place in the queue of its type.
 */
export interface JobOffer {
  instanceId: string;
  /** The job's id within its instance. */
  jobId: string;
  /** What workers ask for (`JobActivation.type`). */
  type: string;
  /**
   * Which attempt of the job this is (a positive safe integer, one more per failure): offering a new attempt
   * lets go of the lock the last one held and puts the job at the back of its type's queue.
   */
  attempt: number;
  /** Epoch ms before which `activateJobs` does not hand it out (a retry backoff); null for at once. */
  notBefore: number | null;
}

/** What `activateJobs` looks for and on whose behalf. */
export interface JobActivation {
  type: string;
  /** Names the worker taking the jobs; any text a store keeps. */
  worker: string;
  /** The caller's clock, epoch ms (an integer): stores read no clock of their own. */
  now: number;
  /** How long each lock holds from `now`, in ms: a positive safe integer. */
  timeoutMs: number;
  /** At most this many jobs: a positive safe integer. */
  limit: number;
}

/** A job's lock: the worker `activateJobs` handed the attempt to, until `deadline` (epoch ms, exclusive). */
export interface JobLock {
  instanceId: string;
  jobId: string;
  type: string;
  attempt: number;
  worker: string;
  deadline: number;
}

/** A checkpoint as handed to `put`: the canonical document bytes plus the fields a store indexes. */
export interface PutCheckpoint {
  instanceId: string;
  seq: number;
  /** The seq this one was derived from; null for an instance's first checkpoint. */
  parentSeq: number | null;
  schema: number;
  definitionDigest: string;
  /** sha256 of the document (the document's own `digest` field). */
  digest: string;
  /** The canonical encoding of the whole document. Stores keep these bytes verbatim. */
  bytes: Uint8Array;
  meta: InstanceMeta;
  /** The lease this write is made under; absent for a writer that never claims (single-node, embedded). */
  fence?: Fence;
  /**
   * What the step that made this checkpoint did (the canonical bytes of a `StepLog`), filed with it at the next
   * position of the store's log (`history`). Kept when the checkpoint is pruned; deleted with the instance
   * (`delete`, `expire`). At most `MAX_DOCUMENT_BYTES`; stores keep these bytes verbatim. Absent: the put files
   * no entry.
   */
  log?: Uint8Array;
  /**
   * Prune in the same transaction: once the put is stored, the instance keeps only its latest `keepLast`
   * checkpoints (with their journals), as `prune` would. A positive safe integer; absent: nothing is pruned.
   * A replayed put prunes nothing.
   */
  keepLast?: number;
  /**
   * Claim the instance's lease in the same transaction, after the put, as `claim` would for this instance
   * alone: a new instance is stored and held in one write. Only on an instance's first put (`parentSeq`
   * null), never with a `fence`. `put` then resolves the lease taken (undefined when none was: the
   * instance is not running, or another owner holds it live).
   */
  claim?: PutClaim;
  /**
   * Release the lease `fence` names in the same transaction, after the put, as `release` would: an instance
   * that ended lets go in the write that ends it. Only with a `fence`.
   */
  release?: boolean;
  /**
   * How many deployments the writer had read when it chose this instance's deployment as the latest of its
   * process (`start(processId)`). Only on an instance's first put (`parentSeq` null). A store that applies it
   * (`Repository.checksDeploymentsSeen`) refuses the put with `StaleDeploymentsError`, storing nothing, when
   * it holds more deployments than that, unless the instance is already stored (a replay).
   */
  deploymentsSeen?: number;
}

/** A claim made with a put (`PutCheckpoint.claim`): as `ClaimOptions`, for the put's instance only. */
export interface PutClaim {
  owner: string;
  ttlMs: number;
  now: number;
}

/** A checkpoint's new document as handed to `rewrite`: a schema migration of bytes already stored. */
export interface RewriteCheckpoint {
  instanceId: string;
  seq: number;
  /** The digest the stored document must still have: a compare-and-swap against a concurrent writer. */
  expectedDigest: string;
  schema: number;
  digest: string;
  bytes: Uint8Array;
  /**
   * The log entry of the checkpoint's step, filed with the rewrite when the checkpoint has none (a migration
   * moving an older document's past into the log); one it has stays as it is. As `PutCheckpoint.log`.
   */
  log?: Uint8Array;
  /** The lease this write is made under, as for `put`. */
  fence?: Fence;
}

/**
 * A journal entry filed against a checkpoint. `value` is opaque canonical bytes, at most `MAX_DOCUMENT_BYTES`;
 * (taskId, index) identifies it within its checkpoint.
 */
export interface PendingWrite {
  /** At most `MAX_TEXT_BYTES` UTF-8 bytes, without U+0000 or a lone surrogate. */
  taskId: string;
  /** A safe integer; negative ones are allowed. */
  index: number;
  value: Uint8Array;
}

export interface StoredCheckpoint {
  instanceId: string;
  seq: number;
  parentSeq: number | null;
  schema: number;
  definitionDigest: string;
  digest: string;
  bytes: Uint8Array;
  /** Journal entries filed against this checkpoint, ordered by (taskId, index) insertion order. */
  writes: PendingWrite[];
  /** The log entry its put filed (`PutCheckpoint.log`); absent when it filed none. */
  log?: Uint8Array;
}

export interface InstanceSummary extends InstanceMeta {
  instanceId: string;
  /**
   * The store's number for the instance: a positive safe integer the put that created it (or the copy that made
   * it) assigned, higher than every one assigned before in this store, never handed out twice (not after a delete
   * either). Numbers may be skipped. What an API with numeric keys names the instance by (see {@link InstanceQuery.serial}).
   */
  serial: number;
  latestSeq: number;
  definitionDigest: string;
  /**
   * The root of the instance's call tree, derived by the store when the instance is created (or a put changes
   * its `parentId`): its own id when it has no parent, else its parent's `rootId`. It never changes otherwise,
   * so deleting an ancestor leaves it as it was. See {@link InstanceQuery.rootId}.
   */
  rootId: string;
}

/** Which way a read runs: `'asc'` (ids or seqs ascending, the default) or `'desc'` (descending). */
export type ReadOrder = 'asc' | 'desc';

/**
 * What `instances` looks for. The filters combine (all must hold); then the matching instances are ordered by id
 * (code point order) in `order`, and `limit` keeps the first that many of that order.
 *
 * Keyset paging works both ways: `after` and `before` are exclusive bounds on the id, whatever the order, so pass
 * the last id of a page as `after` to go on ascending, or as `before` to go on descending.
 */
export interface InstanceQuery {
  /** Only the instance with this serial ({@link InstanceSummary.serial}); a number no instance has matches nothing. */
  serial?: number;
  /**
   * Only instances with one of these ids (at most `MAX_INSTANCE_IDS`, 1,000); ids not stored match nothing, an empty
   * list matches no instance. What a reader of many instances asks in one read instead of one per instance.
   */
  ids?: readonly string[];
  /** Only instances with no parent. */
  roots?: boolean;
  /** Only called children (instances with a parent). */
  children?: boolean;
  parentId?: string;
  /**
   * Only the call tree rooted at this id: the root itself (when stored) and every descendant at any depth,
   * deleted ancestors notwithstanding. An id that is not a root (a child's) matches nothing.
   */
  rootId?: string;
  status?: InstanceStatus;
  /** A definition id. */
  definition?: string;
  /** A process id (of any definition): one process of a file that holds several. */
  processId?: string;
  /**
   * Only instances started with this business key. No store indexes it: the instances are read in id order
   * until the page is full (with `definition` or `status`, only theirs).
   */
  businessKey?: string;
  /** Ids ascending (the default) or descending. */
  order?: ReadOrder;
  /** Page size: a non-negative safe integer; all when absent. */
  limit?: number;
  /** Only instances whose id sorts after this one (code point order). */
  after?: string;
  /** Only instances whose id sorts before this one (code point order). */
  before?: string;
}

export interface DeploymentInput {
  definitionId: string;
  /** sha256 of the canonical compiled model. */
  digest: string;
  /** The BPMN XML as deployed; instances restore their model from it. */
  xml: string;
  deployedAt: number;
}

export interface Deployment extends DeploymentInput {
  /** 1 for a definition id's first digest, then one more for each new digest. */
  version: number;
}

/**
 * Which part of an instance's history `list` reads. `after` and `before` are exclusive bounds on the seq,
 * whatever the order; the checkpoints between them are ordered by seq in `order`, and `limit` keeps the first
 * that many of that order. Bounds and limit are safe integers (a limit non-negative), else a `RangeError`.
 *
 * Keyset paging works both ways: pass the last seq of a page as `after` to go on oldest first, or (with
 * `order: 'desc'`) as `before` to go on newest first. `{ order: 'desc', limit: 100 }` is the newest 100.
 */
export interface ListOptions {
  /** Seqs ascending, oldest first (the default), or descending, newest first. */
  order?: ReadOrder;
  /** Only checkpoints with a seq lower than this. */
  before?: number;
  /** Only checkpoints with a seq greater than this. */
  after?: number;
  limit?: number;
}
