import { ConflictError, LeaseLostError, NotFoundError, ParentLinkError, StaleDeploymentsError } from './errors.js';
import type {
  BufferedMessage,
  Fence,
  Lease,
  PendingWrite,
  PutCheckpoint,
  RewriteCheckpoint,
} from './repository-types.js';

/** Byte-for-byte equality of two documents. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) {
    if (a[i] !== b[i]) return false;
  }
  return true;
}

/**
 * The `put` rules every store applies inside its write transaction, so they agree to the letter: a replay
 * of a stored seq with the same bytes is a no-op (`'replay'`), with other bytes a conflict; otherwise the
 * parent must be the latest seq (null when there is none) and the seq must move forward (`'insert'`).
 *
 * @param stored the bytes already stored at `checkpoint.seq`, if any
 * @param latest the instance's latest seq, null when it has none
 */
export function decidePut(
  checkpoint: PutCheckpoint,
  stored: Uint8Array | undefined,
  latest: number | null,
): 'replay' | 'insert' {
  const { instanceId, seq, parentSeq } = checkpoint;
  if (stored !== undefined) {
    // A replayed put (e.g. a retry after a lost acknowledgement) is a no-op only if it is the same document.
    if (equalBytes(stored, checkpoint.bytes)) return 'replay';
    throw new ConflictError(instanceId, seq, `seq ${seq} is already stored with different bytes`);
  }
  if (parentSeq !== latest) {
    throw new ConflictError(
      instanceId,
      seq,
      latest === null
        ? `the instance has no checkpoint, so parentSeq must be null, not ${parentSeq}`
        : `parentSeq ${parentSeq} is stale; the latest seq is ${latest}`,
    );
  }
  if (latest !== null && seq <= latest) {
    throw new ConflictError(instanceId, seq, `seq ${seq} must be greater than its parent seq ${latest}`);
  }
  return 'insert';
}

/**
 * Which parent `put` must find stored: the one it links the instance to when it makes the link (the
 * instance's first put, or a put naming another parent than the one indexed). Null when there is nothing to
 * check: a root, or a link kept from an earlier put, which stays valid once its parent is deleted (`delete`
 * leaves children). Checked after {@link decidePut} says `'insert'`: a replay changes nothing.
 *
 * @param indexed the parent id the instance is indexed with, undefined when it has no checkpoint
 */
export function parentToCheck(checkpoint: PutCheckpoint, indexed: string | null | undefined): string | null {
  const { parentId } = checkpoint.meta;
  return parentId === null || parentId === indexed ? null : parentId;
}

/**
 * The parent rule of `put`: the parent {@link parentToCheck} named must be a stored instance.
 *
 * @throws ParentLinkError naming the instance, `meta.parentId` and the missing parent
 */
export function checkParentStored(checkpoint: PutCheckpoint, stored: boolean): void {
  if (stored) return;
  throw new ParentLinkError(
    checkpoint.instanceId,
    'meta.parentId',
    `names instance ${JSON.stringify(checkpoint.meta.parentId)}, which is not stored: put the parent first`,
  );
}

/**
 * The deployments rule of `put`, for a put that stores a new instance (checked after the parent rule; a replay
 * of a stored first put is not checked): none deployed since the writer chose the instance's deployment.
 *
 * @param stored how many deployments the store holds
 * @throws StaleDeploymentsError naming the instance and both counts
 */
export function checkDeploymentsSeen(checkpoint: PutCheckpoint, stored: number): void {
  const seen = checkpoint.deploymentsSeen;
  if (seen !== undefined && stored > seen) throw new StaleDeploymentsError(checkpoint.instanceId, seen, stored);
}

/**
 * The `putWrites` head rule: entries are filed against the instance's latest checkpoint only, as a restore
 * reads no other checkpoint's entries. A writer filing against an older seq lost a race to a later put.
 *
 * @param latest the instance's latest seq, null when it has none
 * @throws ConflictError naming the latest seq (or that there is no checkpoint)
 */
export function checkWritesTarget(instanceId: string, seq: number, latest: number | null): void {
  if (latest === null) {
    throw new ConflictError(instanceId, seq, `there is no checkpoint at seq ${seq} to file writes against`);
  }
  if (seq !== latest) {
    throw new ConflictError(
      instanceId,
      seq,
      seq < latest
        ? `seq ${seq} is not the latest checkpoint; the latest seq is ${latest}, and a restore reads only its entries`
        : `there is no checkpoint at seq ${seq} to file writes against; the latest seq is ${latest}`,
    );
  }
}

/**
 * The `putWrites` repeat rule: an entry whose (taskId, index) is already filed, in the store or earlier in
 * the same call, is a no-op when its value is the same bytes, and refuses the whole call when it differs.
 *
 * @param filed the value stored at a (taskId, index) of the checkpoint, undefined when none is
 * @returns the entries to insert, in the order given, each (taskId, index) once
 * @throws ConflictError naming the task id and index of the first entry whose value differs
 */
export function planWrites(
  instanceId: string,
  seq: number,
  writes: readonly PendingWrite[],
  filed: (taskId: string, index: number) => Uint8Array | undefined,
): PendingWrite[] {
  const fresh: PendingWrite[] = [];
  // Task ids never hold U+0000 (checkWritesArguments), so it separates the two parts of a key.
  const inCall = new Map<string, Uint8Array>();
  for (const write of writes) {
    const key = `${write.taskId}\u0000${write.index}`;
    const first = inCall.get(key) ?? filed(write.taskId, write.index);
    if (first === undefined) {
      inCall.set(key, write.value);
      fresh.push(write);
    } else if (!equalBytes(first, write.value)) {
      throw new ConflictError(
        instanceId,
        seq,
        `journal entry (taskId ${JSON.stringify(write.taskId)}, index ${write.index}) is already filed with a different value; the first value stands`,
      );
    }
  }
  return fresh;
}

/**
 * The `rewrite` rules every store applies inside its write transaction: the checkpoint must exist; a
 * retried rewrite that already landed finds its own bytes (`'replay'`); otherwise the stored digest must
 * still be the expected one (`'replace'`), else another writer got there first.
 */
export function decideRewrite(
  checkpoint: RewriteCheckpoint,
  stored: { digest: string; bytes: Uint8Array } | undefined,
): 'replay' | 'replace' {
  const { instanceId, seq } = checkpoint;
  if (stored === undefined) throw new ConflictError(instanceId, seq, `there is no checkpoint at seq ${seq} to rewrite`);
  if (equalBytes(stored.bytes, checkpoint.bytes)) return 'replay';
  if (stored.digest !== checkpoint.expectedDigest) {
    throw new ConflictError(
      instanceId,
      seq,
      `the stored digest is ${stored.digest}, not the expected ${checkpoint.expectedDigest}; another writer rewrote it`,
    );
  }
  return 'replace';
}

/** An instance's held lease as a store keeps it (a released lease is not kept: it is not held). */
export interface HeldLease {
  owner: string;
  token: number;
  expiresAt: number;
}

/**
 * The fence rule every store applies first in `put`, `putWrites` and `rewrite`, inside the write
 * transaction: a fenced write must carry the held lease's owner and token; an unfenced write is refused
 * while any lease is held (lapsed or not: stores read no clock, and the holder may still be writing).
 *
 * @param held the instance's held lease, undefined when none is held
 * @throws LeaseLostError naming the instance, the writer's owner and token, and who holds the lease
 */
export function checkFence(instanceId: string, fence: Fence | undefined, held: HeldLease | undefined): void {
  if (fence === undefined) {
    if (held === undefined) return;
    throw new LeaseLostError(
      instanceId,
      null,
      null,
      `owner ${JSON.stringify(held.owner)} holds its lease (token ${held.token}); write under that lease's fence, or release it first`,
    );
  }
  if (held === undefined) {
    throw new LeaseLostError(
      instanceId,
      fence.owner,
      fence.token,
      'no lease is held (it was released, or never claimed)',
    );
  }
  if (held.owner !== fence.owner || held.token !== fence.token) {
    throw new LeaseLostError(
      instanceId,
      fence.owner,
      fence.token,
      `the lease is now held by owner ${JSON.stringify(held.owner)} with token ${held.token}`,
    );
  }
}

/** Whether `claim` may take an instance at `now`: no lease is held, or the held one lapsed (`expiresAt <= now`). */
export function isClaimable(held: HeldLease | undefined, now: number, takeOver: readonly string[] = []): boolean {
  return held === undefined || held.expiresAt <= now || takeOver.includes(held.owner);
}

/**
 * The `renew` rule: the lease must still be the held one (same owner and token), lapsed or not.
 *
 * @throws LeaseLostError when it was released, taken over, or its instance deleted
 */
export function checkRenew(lease: Lease, held: HeldLease | undefined): void {
  if (held === undefined) {
    throw new LeaseLostError(
      lease.instanceId,
      lease.owner,
      lease.token,
      'no lease is held (it was released, or the instance deleted)',
    );
  }
  if (held.owner !== lease.owner || held.token !== lease.token) {
    throw new LeaseLostError(
      lease.instanceId,
      lease.owner,
      lease.token,
      `the lease was taken over by owner ${JSON.stringify(held.owner)} with token ${held.token}`,
    );
  }
}

/**
 * Refuse lease arguments no store could honour the same way: a clock or duration that is not a finite
 * number, a ttl that is not positive, a limit that is not a whole number.
 *
 * @throws RangeError naming the argument
 */
export function checkLeaseArguments(args: { ttlMs: number; now: number; limit?: number }): void {
  if (!Number.isFinite(args.now)) throw new RangeError(`now must be a finite epoch ms, not ${args.now}`);
  if (!Number.isFinite(args.ttlMs) || args.ttlMs <= 0) {
    throw new RangeError(`ttlMs must be a positive number of milliseconds, not ${args.ttlMs}`);
  }
  if (args.limit !== undefined && (!Number.isInteger(args.limit) || args.limit < 0)) {
    throw new RangeError(`limit must be a whole number, not ${args.limit}`);
  }
}

/**
 * The `copy` rules: the source must have a checkpoint, and the target must not exist (copying an instance
 * onto itself is copying onto an existing target).
 *
 * @param targetLatest the target's latest seq, null when it does not exist
 * @throws NotFoundError when the source does not exist; ConflictError when the target does
 */
export function decideCopy(
  sourceId: string,
  targetId: string,
  sourceExists: boolean,
  targetLatest: number | null,
): void {
  if (!sourceExists) throw new NotFoundError(sourceId, `there is nothing to copy to ${targetId}`);
  if (targetLatest !== null) {
    throw new ConflictError(
      targetId,
      targetLatest,
      `cannot copy ${sourceId} onto it: the target already exists (delete it first, or pick another id)`,
    );
  }
}

/**
 * The `prune` argument rule: keep at least the latest checkpoint, which is what a restore reads.
 *
 * @throws RangeError when `keepLast` is not an integer of at least 1
 */
export function checkKeepLast(keepLast: number): void {
  if (!Number.isInteger(keepLast) || keepLast < 1) {
    throw new RangeError(`keepLast must be an integer of at least 1, not ${keepLast}; use delete to remove everything`);
  }
}

/**
 * The `takeMessage` and `expireMessages` clock rule: `now` must be a finite epoch ms.
 *
 * @throws RangeError naming the value
 */
export function checkMessageClock(now: number): void {
  if (!Number.isFinite(now)) throw new RangeError(`now must be a finite epoch ms, not ${now}`);
}

/**
 * Which buffered message `takeMessage` hands to `taker`, among those with the asked name and key: the oldest
 * the taker already holds (expired or not), else the oldest no one holds that is unexpired at `now`. Oldest
 * is by `publishedAt`, ties by id in code point order. Stores that select in SQL apply the same order.
 */
/**
 * `takeMessage`'s names as a list without repeats: one name, or an array of names.
 *
 * @throws RangeError for anything else, naming it
 */
export function messageNames(names: string | readonly string[]): string[] {
  if (typeof names === 'string') return [names];
  if (!Array.isArray(names)) {
    throw new RangeError(`takeMessage: names must be a name or an array of names, not ${typeof names}`);
  }
  const bad = names.findIndex((name) => typeof name !== 'string');
  if (bad >= 0) throw new RangeError(`takeMessage: names[${bad}] must be a string, not ${typeof names[bad]}`);
  return [...new Set(names)];
}

export function pickMessage<T extends { message: BufferedMessage; taker: string | null }>(
  candidates: Iterable<T>,
  now: number,
  taker: string,
): T | undefined {
  let held: T | undefined;
  let free: T | undefined;
  for (const candidate of candidates) {
    if (candidate.taker === taker) {
      if (held === undefined || olderMessage(candidate.message, held.message)) held = candidate;
    } else if (candidate.taker === null && candidate.message.expiresAt > now) {
      if (free === undefined || olderMessage(candidate.message, free.message)) free = candidate;
    }
  }
  return held ?? free;
}

function olderMessage(a: BufferedMessage, b: BufferedMessage): boolean {
  if (a.publishedAt !== b.publishedAt) return a.publishedAt < b.publishedAt;
  return compareCodePoints(a.id, b.id) < 0;
}

/**
 * Order strings by Unicode code point, as SQL stores do when comparing UTF-8 bytes (JavaScript's `<` compares
 * UTF-16 code units, which sorts U+E000–U+FFFF after astral characters).
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}
