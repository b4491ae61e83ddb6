import type {
  BufferedMessage,
  ClaimOptions,
  Deployment,
  DeploymentInput,
  DueTimer,
  ExpireOptions,
  Fence,
  HistoryQuery,
  InstanceQuery,
  InstanceSummary,
  JobActivation,
  JobLock,
  JobOffer,
  Lease,
  ListOptions,
  LogEntry,
  LogReader,
  PendingWrite,
  PruneOptions,
  PutCheckpoint,
  RewriteCheckpoint,
  StoredCheckpoint,
} from './repository-types.js';
import type { RowBatch, RowPage, RowSearch } from './search-rows.js';

/**
 * Where instances live durably (docs/architecture.md §7). Every method is atomic; the engine never sees SQL.
 *
 * @remarks
 * Implementations must keep document bytes verbatim and run the conformance suite
 * (`@thresher/conformance`); the rules every store applies inside its write transaction (`decidePut`,
 * `decideRewrite`, `checkFence`, `decideCopy`, ...) and what every store refuses before it reads anything
 * (`checkPutArguments`, ...) are shared in `@thresher/checkpoint/store-kit`.
 *
 * **Documents are opaque.** A store never decodes a document: it does not verify its digest or schema at
 * write time (that would tie every store to the codec and double the cost of the write path, and the
 * engine, the one writer that seals documents, never writes a bad one). Whoever reads a checkpoint checks
 * it against its row (`openCheckpoint(bytes, { instanceId, seq, schema })`); a head that does not open is
 * stepped over by writing an earlier good state as a new head (the engine's `rollback`), never by deleting.
 *
 * **Write rules.** Every method is all or nothing: a refused call, wherever the refusal is found, leaves the
 * store as it was (the memory store included). Arguments are checked first, the same way on every backend,
 * before the fence and the rules on what is stored:
 * - *Text.* Every text a store keeps (instance, process, definition and call node ids, digests, status,
 *   business keys, parent ids, subscription names and keys, journal task ids, lease owners, message ids,
 *   names, correlation keys and takers, deployment ids, digests and XML) must be a string without U+0000 or a
 *   lone UTF-16 surrogate, else `UnencodableValueError` naming the field (`meta.businessKey`,
 *   `writes[2].taskId`, ...). A lookup by such text finds nothing, as for any id the store does not have.
 * - *Limits.* Text is at most `MAX_TEXT_BYTES` (512) UTF-8 bytes, deployment XML excepted; a document, a
 *   journal value, message variables and deployment XML at most `MAX_DOCUMENT_BYTES` (16 MiB). Past them:
 *   `LimitExceededError` naming the field, its length and the limit.
 * - *Numbers.* Seqs, journal indexes and `deployedAt` are safe integers, `schema` a positive 32-bit one,
 *   `dueAt` and message times finite: else a `RangeError`.
 * - *Parent links.* `meta.parentId` and `meta.callNodeId` are both null (a root) or both set, and a parent is
 *   never the instance itself: else `ParentLinkError`.
 *
 * **Leases.** An instance has at most one lease. A lease is *held* from the `claim` that took it until it is
 * released or another owner's `claim` takes it over; it is *live* at a time `now` while held and
 * `now < expiresAt`. Expiry is judged only by `claim` and `renew`, against the `now` they are given: stores
 * read no clock, so tests stay deterministic and nodes need no synchronised clock to stay safe, because a
 * write is judged by token, not by time. Fencing tokens are integers that strictly increase per instance
 * across owners and are never handed out twice, not even to an id that was deleted and written again (a
 * store may draw them from one store-wide sequence); they survive restarts.
 *
 * **Fencing.** `put`, `putWrites` and `rewrite` check the fence before any other rule: a write carrying a
 * fence whose owner and token are not those of the instance's held lease is refused with `LeaseLostError`,
 * and so is a write without a fence while a lease is held. Single-node embedded use never claims and writes
 * unfenced. Admin operations (`delete`, `copy`, `prune`) ignore leases.
 *
 * **Buffered messages.** `putMessage`, `takeMessage`, `deleteMessage` and `expireMessages` keep messages that
 * arrived before their subscription, apart from instances (deleting an instance leaves them). Taking is in two
 * steps so that a message is neither lost nor delivered twice: `takeMessage` hands a message to exactly one
 * taker and holds it for that taker; the taker delivers it durably (its own write, recording the message id),
 * then `deleteMessage` removes it. A taker that stops in between asks again and gets the held message back.
 */
export interface Repository {
  /**
   * True when `put` applies `PutCheckpoint.deploymentsSeen` (conformance cases TH-DEPLOY-11 to 14). The engine
   * then keeps the deployments it read and lets a new instance's first put check that none came since,
   * instead of reading every deployment at every `start`; without it, it reads them at every `start`.
   */
  readonly checksDeploymentsSeen?: boolean;
  /**
   * Store a checkpoint and index its `meta` (status, discovery fields, due timer, subscriptions).
   *
   * Refuses arguments the write rules refuse (see the interface). Then refuses with `LeaseLostError` when its
   * `fence` is not the held lease, or it has none while a lease is held. Then refuses with `ConflictError`
   * when `parentSeq` is not the instance's latest seq (null when it has none), i.e. a stale writer, or when
   * `seq` is not greater than the latest. Writing an existing seq again with identical bytes is a no-op (the
   * index is left as it is); with different bytes it is a `ConflictError`. A stored row is never overwritten.
   * Then, when the put makes a parent link (the instance's first put, or one naming another `parentId` than
   * the indexed one), refuses with `ParentLinkError` unless `parentId` names a stored instance. A link once
   * made stays valid when its parent is deleted. Then, when the put stores a new instance and carries
   * `deploymentsSeen`, a store that `checksDeploymentsSeen` refuses with `StaleDeploymentsError` when it
   * holds more deployments than that.
   *
   * With `claim` or `release`, the lease changes in the same transaction, after the put (a replayed put
   * included); a refused put changes no lease. Resolves the lease `claim` took, else undefined. A stored put
   * files its `log` entry and prunes to its `keepLast` in the same transaction; a replayed or refused one
   * does neither.
   */
  put(checkpoint: PutCheckpoint): Promise<Lease | undefined>;
  /**
   * Replace the bytes of an existing checkpoint in place (a schema migration): seq, parentSeq, writes and the
   * instance's index stay as they are. Fenced as `put` is. Refuses with `ConflictError` when the checkpoint
   * does not exist or its stored digest is no longer `expectedDigest`. Rewriting with the bytes already
   * stored is a no-op. A rewrite carrying a `log` entry files it at the next position of the log, in the same
   * transaction, unless the checkpoint has one.
   */
  rewrite(checkpoint: RewriteCheckpoint): Promise<void>;
  /**
   * File journal entries against checkpoint `seq` of an instance, all in one transaction: all are filed or
   * none. Fenced as `put` is. `seq` must be the instance's latest seq, as a restore reads only the latest
   * checkpoint's entries: any other seq is refused with `ConflictError` naming the latest (a late writer
   * learns it lost to a later put). Idempotent by (taskId, index): filing an entry again with the same bytes
   * (in this call or a later one) is a no-op; with other bytes it is a `ConflictError` naming the task id and
   * index, and nothing of the call is filed. Entries come back in the order they were first filed. A new
   * checkpoint starts with no entries: entries stay with the seq they were filed against.
   */
  putWrites(instanceId: string, seq: number, writes: PendingWrite[], fence?: Fence): Promise<void>;
  /** The latest checkpoint (or the one at `seq`) with its writes and log entry; undefined when missing. */
  get(instanceId: string, seq?: number): Promise<StoredCheckpoint | undefined>;
  /**
   * The latest checkpoint of each of `instanceIds` with its writes, as `get` reads one, all from one snapshot
   * (what a recovery restores in bulk): in the order asked, an id asked twice answered once (at its first
   * place), an instance with no checkpoint (or an id no store can hold) left out.
   */
  getMany(instanceIds: readonly string[]): Promise<StoredCheckpoint[]>;
  /**
   * An instance's checkpoints, each with its writes: its history, oldest first unless `order` is `'desc'`.
   * `after` and `before` bound the seqs (exclusive), then `limit` keeps the first that many of the order
   * ({@link ListOptions}). A missing instance has an empty history.
   *
   * @throws RangeError when `order` is neither `'asc'` nor `'desc'`, a bound is not a safe integer, or `limit`
   * is not a non-negative safe integer
   */
  list(instanceId: string, options?: ListOptions): Promise<StoredCheckpoint[]>;
  /**
   * The store's log: the entries puts filed (`PutCheckpoint.log`), in the order the store committed them (all
   * instances', or one's), each with its `position`: what a reader that was away reads on from (the engine's
   * `events`), and an instance's whole past (its `history`). An entry appears only once no entry committed
   * before it can still appear, so a reader that goes on from the last position it saw never misses one (on
   * PostgreSQL, an entry shows once every transaction older than its own ended). Pruning checkpoints leaves the
   * log as it is; deleted and expired instances' entries are gone; a copy's entries are new ones, at new
   * positions.
   *
   * @throws RangeError when `after` is not a position of this store, or `limit` is not a non-negative safe integer
   */
  history(query?: HistoryQuery): Promise<LogEntry[]>;
  /**
   * Register a reader of the log, or record how far it has read: `expire` keeps every instance with an entry
   * after its position. Creates the reader when its name is new, else replaces what is stored of it. Refuses
   * a position that is not one of this store's (`RangeError`), and text the write rules refuse.
   */
  putReader(reader: LogReader): Promise<void>;
  /** The registered readers, by name (code point order). */
  readers(): Promise<LogReader[]>;
  /** Unregister a reader; true when it was registered. */
  deleteReader(name: string): Promise<boolean>;
  /**
   * Delete ended instances whole, as `delete` does, oldest end first (ties by id), at most `limit`: those not
   * running whose `endedAt` is at or before `endedBefore`, but none that still holds a lease (its end is not
   * delivered yet), has a running called child, or has a log entry after a registered reader's position (one
   * with a null position keeps every instance with an entry). Returns the ids deleted, in that order.
   *
   * @throws RangeError when `endedBefore` is not finite, or `limit` is not a positive safe integer
   */
  expire(options: ExpireOptions): Promise<string[]>;
  /**
   * Remove an instance with all its checkpoints, writes, log entries, index entries and lease; a missing instance is a
   * no-op. Other instances are untouched, called children included (delete each): their `parentId` and
   * `rootId` stay as they were, so `instances({ rootId })` still finds the rest of a tree whose root or middle
   * instance was deleted. Ignores leases.
   */
  delete(instanceId: string): Promise<void>;
  /**
   * Copy an instance's whole history (every checkpoint with its writes, its log entries, and its index entry:
   * meta, due timer, subscriptions) to `targetId`, in one transaction; the source is unchanged. The lease is not copied.
   *
   * Document bytes are copied verbatim, and a document names its instance inside its bytes (under its
   * digest), so the copy is an archive or fork for inspection: `openCheckpoint` opens its documents under
   * the *source* id, and the engine refuses to restore them as the target (`CorruptCheckpointError`).
   * Delete a copy of a running instance when done with it, as it stays indexed as running.
   *
   * The copy keeps the source's `parentId`, so its `rootId` is derived as for a new instance: a copy of a
   * root is a root of its own (`rootId` is `targetId`; the source's descendants are not copied), a copy of a
   * called child joins the source's tree (the source's `rootId`).
   *
   * Refuses with `NotFoundError` when the source has no checkpoint (nothing is created), and with
   * `ConflictError` (at the target's latest seq) when the target already exists, the source itself included.
   * Ignores leases.
   */
  copy(sourceId: string, targetId: string): Promise<void>;
  /**
   * Remove all but the latest `keepLast` checkpoints of an instance, with their writes; the kept ones keep
   * their writes, and the instance's index and log are unchanged. The oldest kept checkpoint's `parentSeq` may then
   * name a pruned seq. A missing instance is a no-op. `keepLast` must be an integer of at least 1, else a
   * `RangeError` (to remove everything, `delete`). Ignores leases.
   */
  prune(instanceId: string, options: PruneOptions): Promise<void>;
  /**
   * Discover instances by what `put` indexed, ids ascending (by code point) unless `order` is `'desc'`;
   * `rootId` finds a whole call tree ({@link InstanceQuery}).
   *
   * @throws RangeError when `order` is neither `'asc'` nor `'desc'`, or `limit` is not a non-negative safe integer
   */
  instances(query?: InstanceQuery): Promise<InstanceSummary[]>;
  /**
   * The ids {@link instances} finds for `query`, in its order, without reading the summaries: what a store
   * answers from its indexes alone (`recover()` lists every running instance this way).
   *
   * @throws RangeError as {@link instances} does
   */
  instanceIds(query?: InstanceQuery): Promise<string[]>;
  /**
   * Take leases for `owner` on up to `limit` running instances that have no live lease at `now` (a lapsed
   * lease is taken over, whoever held it; one held live, by this owner or another, is skipped: `renew` it).
   * Each lease gets a fresh fencing token, greater than any the instance had, and lasts until
   * `now + ttlMs`; one taken over from a held lease names its owner (`takenFrom`). Instances are taken in id order, only among `instanceIds` when given. Returns the
   * leases taken, ids ascending; none when nothing is claimable.
   */
  claim(options: ClaimOptions): Promise<Lease[]>;
  /**
   * The lease held on an instance, live or lapsed: who holds it and until when. Undefined when none is held
   * (never claimed, released, taken by nobody since) or the instance is not stored.
   */
  lease(instanceId: string): Promise<Lease | undefined>;
  /**
   * The owners that hold at least one lease, live or lapsed, each once, in code point order: what a recovery
   * checks for engines known gone, whose leases it may take over at once (`ClaimOptions.takeOver`).
   */
  leaseOwners(): Promise<string[]>;
  /**
   * Extend a held lease to `now + ttlMs`, keeping its token, and return it. A lease that was released or
   * taken over (its owner and token are not the instance's held lease), or whose instance was deleted, is
   * refused with `LeaseLostError`. A lapsed lease that nobody took over is still held and renews.
   */
  renew(lease: Lease, ttlMs: number, now: number): Promise<Lease>;
  /**
   * Give up a held lease: the instance is claimable at once, and the next claim gets a greater token. A
   * lease no longer held (released, taken over, instance deleted) is a no-op. A release records no step, so a
   * store may commit it without waiting for the disk: visible at once, durable with the store's next durable
   * write. Lost to a crash of the machine before then, the lease stays held until it lapses or its holder is
   * known gone, as after a crash right before the release (an ended instance's events are published again).
   */
  release(lease: Lease): Promise<void>;
  /**
   * Running instances whose `dueAt` is at or before `now`: earliest first, ties by id, at most `limit`.
   * Leases are not considered (claim the instances to act on them).
   */
  dueTimers(now: number, limit: number): Promise<DueTimer[]>;
  /**
   * Ids (ascending, each once) of running instances whose latest put subscribed to message `name` with
   * correlation key `key`. Matching is exact; a null `key` matches only subscriptions with a null key.
   */
  subscriptions(name: string, key: string | null): Promise<string[]>;
  /**
   * Keep a message until a subscription takes it or it expires. Idempotent by `id`: while a message with that
   * id is stored (held or not, expired or not), putting one again is a no-op that returns false, whatever its
   * other fields; otherwise the message is stored and true returned. Once deleted (taken and confirmed, or
   * expired), the id may be put again. `publishedAt` and `expiresAt` must be finite, else a `RangeError`.
   */
  putMessage(message: BufferedMessage): Promise<boolean>;
  /**
   * Take a message for `taker` (an instance id): the oldest (by `publishedAt`, ties by id in code point order)
   * stored message with this name — or with any of several `names`, in one read — and correlation key that no
   * taker holds and that has not expired at `now` (`expiresAt > now`), or undefined when there is none. Matching
   * is exact; a null key matches only messages with a null key; an empty list of names matches nothing.
   *
   * Atomic: of concurrent takers, on any connection, exactly one gets a given message; from then on it is held
   * for that taker and no other taker ever sees it. It stays stored, held, until `deleteMessage(id)` confirms
   * that the taker delivered it: a taker that asks again with the same name (or one of the names) and key gets the
   * message it already holds first, expired or not, so a taker that stopped between taking and delivering gets
   * it back.
   */
  takeMessage(
    names: string | readonly string[],
    correlationKey: string | null,
    now: number,
    taker: string,
  ): Promise<BufferedMessage | undefined>;
  /** Remove a message (held or not) by id; true when it was stored, false when there was nothing to remove. */
  deleteMessage(id: string): Promise<boolean>;
  /**
   * Delete every message expired at `now` (`expiresAt <= now`), held ones included; returns how many. Messages
   * not yet expired are untouched.
   */
  expireMessages(now: number): Promise<number>;
  /**
   * Queue a job for outside workers, after the put that made it. An offer of the attempt already queued changes
   * only its `notBefore` (its lock and place stay); another attempt replaces it, unlocked, at the back of the
   * queue. Returns false, storing nothing, when the store does not have the instance. Offers go with their
   * instance (`delete`, `expire`); `copy` copies none.
   */
  offerJob(offer: JobOffer): Promise<boolean>;
  /** Take a job out of its queue (it completed, or its instance moved past it); true when it was queued. */
  withdrawJob(instanceId: string, jobId: string): Promise<boolean>;
  /**
   * Lock up to `limit` queued jobs of `type` for `worker` until `now + timeoutMs`: those due (`notBefore` null
   * or at or before `now`) and not locked at `now` (no lock, or its deadline at or before `now`), first queued
   * first. Atomic: of concurrent activations, on any connection, one locks a given job; it is not handed out
   * again until its lock expires or a new attempt is offered.
   */
  activateJobs(activation: JobActivation): Promise<JobLock[]>;
  /**
   * Move the deadline of a lock still held at `now` (by that attempt) to `now + timeoutMs`; the lock as it now
   * stands, or undefined when the attempt holds no lock at `now`.
   */
  relockJob(
    job: Pick<JobLock, 'instanceId' | 'jobId' | 'attempt'>,
    timeoutMs: number,
    now: number,
  ): Promise<JobLock | undefined>;
  /** The lock a queued job carries as stored (its deadline may have passed); undefined when it has none. */
  jobLock(instanceId: string, jobId: string): Promise<JobLock | undefined>;
  /**
   * Write a projection's batch of search rows (put whole, or deleted) with the position it read up to, in one
   * transaction, when the projection's stored position is `batch.after`; else write nothing and return false
   * (another writer went first: read the position again). Rows are apart from instances: no call but this one
   * changes them.
   */
  putRows(batch: RowBatch): Promise<boolean>;
  /** The position a projection's last batch read up to; null when it wrote none. */
  projectionPosition(projection: string): Promise<string | null>;
  /** The rows of a kind passing every condition, in the search's order, one page of them, and how many pass. */
  searchRows(search: RowSearch): Promise<RowPage>;
  /** Record a deployment; idempotent by digest (returns the existing one). Assigns the version. */
  putDeployment(deployment: DeploymentInput): Promise<Deployment>;
  getDeployment(digest: string): Promise<Deployment | undefined>;
  /** Deployments oldest first, optionally of one definition id. */
  deployments(definitionId?: string): Promise<Deployment[]>;
  /** Release connections and handles; further calls fail. */
  close(): Promise<void>;
}
