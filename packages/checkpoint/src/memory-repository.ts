import { CheckpointError, CheckpointErrorCode, ConflictError } from './errors.js';
import {
  checkFence,
  checkKeepLast,
  checkLeaseArguments,
  checkMessage,
  checkMessageClock,
  checkRenew,
  compareCodePoints,
  decideCopy,
  decidePut,
  decideRewrite,
  type HeldLease,
  isClaimable,
  pickMessage,
} from './put-rules.js';
import type {
  BufferedMessage,
  Deployment,
  DeploymentInput,
  DueTimer,
  InstanceMeta,
  InstanceQuery,
  InstanceSummary,
  Lease,
  ListOptions,
  PendingWrite,
  Repository,
  StoredCheckpoint,
} from './repository.js';

interface CheckpointEntry {
  seq: number;
  parentSeq: number | null;
  schema: number;
  definitionDigest: string;
  digest: string;
  bytes: Uint8Array;
  /** In insertion order; `writeKeys` makes (taskId, index) idempotent. */
  writes: PendingWrite[];
  writeKeys: Map<string, Set<number>>;
}

interface InstanceEntry {
  /** Keyed by seq; `put` only appends seqs above the latest, so insertion order is seq order. */
  checkpoints: Map<number, CheckpointEntry>;
  latestSeq: number;
  definitionDigest: string;
  meta: InstanceMeta;
  /** The held lease; absent when none is held. */
  lease?: HeldLease;
}

interface MessageEntry {
  message: BufferedMessage;
  /** Who took it and has not yet deleted it; null while no one holds it. */
  taker: string | null;
}

/**
 * Create the in-memory reference implementation of the {@link Repository} contract.
 *
 * @remarks
 * Nothing survives the process: use it for tests, examples and short-lived runs. Bytes are copied on the
 * way in and out, so neither the caller's buffer nor a returned one can change what is stored. Every
 * method checks and mutates within one synchronous turn, which makes it atomic with respect to other
 * calls even though it returns a promise.
 *
 * @example
 * ```ts
 * const repository = createMemoryRepository();
 * await repository.put(checkpoint);
 * const latest = await repository.get(checkpoint.instanceId);
 * ```
 */
export function createMemoryRepository(): Repository {
  const instances = new Map<string, InstanceEntry>();
  const deploymentsInOrder: Deployment[] = [];
  const deploymentsByDigest = new Map<string, Deployment>();
  const messages = new Map<string, MessageEntry>();
  /** The last fencing token handed out, store-wide: tokens are never reused, not even after a delete. */
  let lastToken = 0;
  let closed = false;

  // Async so that a closed repository (and every other refusal) rejects rather than throws synchronously.
  const assertOpen = async (): Promise<void> => {
    if (closed) {
      throw new CheckpointError(CheckpointErrorCode.Store, 'the memory repository is closed; create a new one');
    }
  };

  return {
    async put(checkpoint) {
      await assertOpen();
      const { instanceId, seq, parentSeq } = checkpoint;
      const instance = instances.get(instanceId);
      checkFence(instanceId, checkpoint.fence, instance?.lease);
      const stored = instance?.checkpoints.get(seq)?.bytes;
      if (decidePut(checkpoint, stored, instance?.latestSeq ?? null) === 'replay') return;
      const entry: CheckpointEntry = {
        seq,
        parentSeq,
        schema: checkpoint.schema,
        definitionDigest: checkpoint.definitionDigest,
        digest: checkpoint.digest,
        bytes: copyBytes(checkpoint.bytes),
        writes: [],
        writeKeys: new Map(),
      };
      const checkpoints = instance?.checkpoints ?? new Map<number, CheckpointEntry>();
      checkpoints.set(seq, entry);
      const next: InstanceEntry = {
        checkpoints,
        latestSeq: seq,
        definitionDigest: checkpoint.definitionDigest,
        meta: copyMeta(checkpoint.meta),
      };
      if (instance?.lease !== undefined) next.lease = instance.lease;
      instances.set(instanceId, next);
    },

    async rewrite(checkpoint) {
      await assertOpen();
      const { instanceId, seq } = checkpoint;
      const instance = instances.get(instanceId);
      checkFence(instanceId, checkpoint.fence, instance?.lease);
      const entry = instance?.checkpoints.get(seq);
      if (decideRewrite(checkpoint, entry) === 'replay' || entry === undefined) return;
      // In place: parentSeq, writes, definitionDigest and the instance's index are not the rewrite's to change.
      entry.schema = checkpoint.schema;
      entry.digest = checkpoint.digest;
      entry.bytes = copyBytes(checkpoint.bytes);
    },

    async putWrites(instanceId, seq, writes, fence) {
      await assertOpen();
      const instance = instances.get(instanceId);
      checkFence(instanceId, fence, instance?.lease);
      const entry = instance?.checkpoints.get(seq);
      if (entry === undefined) {
        throw new ConflictError(instanceId, seq, `there is no checkpoint at seq ${seq} to file writes against`);
      }
      for (const write of writes) {
        let indexes = entry.writeKeys.get(write.taskId);
        if (indexes === undefined) {
          indexes = new Set();
          entry.writeKeys.set(write.taskId, indexes);
        }
        // The first entry for a (taskId, index) wins: a retried task must not rewrite its journal.
        if (indexes.has(write.index)) continue;
        indexes.add(write.index);
        entry.writes.push(copyWrite(write));
      }
    },

    async get(instanceId, seq) {
      await assertOpen();
      const instance = instances.get(instanceId);
      if (instance === undefined) return undefined;
      const entry = instance.checkpoints.get(seq ?? instance.latestSeq);
      return entry === undefined ? undefined : toStored(instanceId, entry);
    },

    async list(instanceId, options: ListOptions = {}) {
      await assertOpen();
      const instance = instances.get(instanceId);
      if (instance === undefined) return [];
      const { before, limit } = options;
      const result: StoredCheckpoint[] = [];
      for (const entry of instance.checkpoints.values()) {
        if (limit !== undefined && result.length >= limit) break;
        if (before !== undefined && entry.seq >= before) break;
        result.push(toStored(instanceId, entry));
      }
      return result;
    },

    async delete(instanceId) {
      await assertOpen();
      instances.delete(instanceId);
    },

    async copy(sourceId, targetId) {
      await assertOpen();
      const source = instances.get(sourceId);
      decideCopy(sourceId, targetId, source !== undefined, instances.get(targetId)?.latestSeq ?? null);
      if (source === undefined) return;
      const checkpoints = new Map<number, CheckpointEntry>();
      for (const [seq, entry] of source.checkpoints) {
        checkpoints.set(seq, {
          ...entry,
          bytes: copyBytes(entry.bytes),
          writes: entry.writes.map(copyWrite),
          writeKeys: new Map([...entry.writeKeys].map(([taskId, indexes]) => [taskId, new Set(indexes)])),
        });
      }
      // The lease stays with the source: the copy is unclaimed.
      instances.set(targetId, {
        checkpoints,
        latestSeq: source.latestSeq,
        definitionDigest: source.definitionDigest,
        meta: copyMeta(source.meta),
      });
    },

    async prune(instanceId, options) {
      await assertOpen();
      checkKeepLast(options.keepLast);
      const instance = instances.get(instanceId);
      if (instance === undefined) return;
      let excess = instance.checkpoints.size - options.keepLast;
      // Insertion order is seq order, so the first entries are the oldest.
      for (const seq of instance.checkpoints.keys()) {
        if (excess-- <= 0) break;
        instance.checkpoints.delete(seq);
      }
    },

    async instances(query: InstanceQuery = {}) {
      await assertOpen();
      const { after, limit } = query;
      const matching: InstanceSummary[] = [];
      for (const [instanceId, instance] of instances) {
        const { meta } = instance;
        if (query.roots && meta.parentId !== null) continue;
        if (query.children && meta.parentId === null) continue;
        if (query.parentId !== undefined && meta.parentId !== query.parentId) continue;
        if (query.status !== undefined && meta.status !== query.status) continue;
        if (query.definition !== undefined && meta.definitionId !== query.definition) continue;
        if (after !== undefined && compareCodePoints(instanceId, after) <= 0) continue;
        matching.push({
          ...copyMeta(meta),
          instanceId,
          latestSeq: instance.latestSeq,
          definitionDigest: instance.definitionDigest,
        });
      }
      matching.sort((a, b) => compareCodePoints(a.instanceId, b.instanceId));
      return limit === undefined ? matching : matching.slice(0, limit);
    },

    async claim(options) {
      await assertOpen();
      const { owner, ttlMs, now, limit } = options;
      checkLeaseArguments({ ttlMs, now, limit });
      const wanted = options.instanceIds === undefined ? undefined : new Set(options.instanceIds);
      const candidates: string[] = [];
      for (const [instanceId, instance] of instances) {
        if (instance.meta.status !== 'running' || !isClaimable(instance.lease, now)) continue;
        if (wanted !== undefined && !wanted.has(instanceId)) continue;
        candidates.push(instanceId);
      }
      candidates.sort(compareCodePoints);
      return candidates.slice(0, limit).map((instanceId) => {
        const lease: Lease = { instanceId, owner, token: ++lastToken, expiresAt: now + ttlMs };
        instances.get(instanceId)!.lease = { owner, token: lease.token, expiresAt: lease.expiresAt };
        return lease;
      });
    },

    async renew(lease, ttlMs, now) {
      await assertOpen();
      checkLeaseArguments({ ttlMs, now });
      const instance = instances.get(lease.instanceId);
      checkRenew(lease, instance?.lease);
      const renewed: Lease = {
        instanceId: lease.instanceId,
        owner: lease.owner,
        token: lease.token,
        expiresAt: now + ttlMs,
      };
      instance!.lease = { owner: renewed.owner, token: renewed.token, expiresAt: renewed.expiresAt };
      return renewed;
    },

    async release(lease) {
      await assertOpen();
      const instance = instances.get(lease.instanceId);
      if (instance?.lease?.owner === lease.owner && instance.lease.token === lease.token) delete instance.lease;
    },

    async dueTimers(now, limit) {
      await assertOpen();
      const due: DueTimer[] = [];
      for (const [instanceId, { meta }] of instances) {
        if (meta.status === 'running' && meta.dueAt !== null && meta.dueAt <= now) {
          due.push({ instanceId, dueAt: meta.dueAt });
        }
      }
      due.sort((a, b) => a.dueAt - b.dueAt || compareCodePoints(a.instanceId, b.instanceId));
      return due.slice(0, Math.max(0, limit));
    },

    async subscriptions(name, key) {
      await assertOpen();
      const waiting: string[] = [];
      for (const [instanceId, { meta }] of instances) {
        if (meta.status !== 'running') continue;
        if (meta.subscriptions.some((subscription) => subscription.name === name && subscription.key === key)) {
          waiting.push(instanceId);
        }
      }
      return waiting.sort(compareCodePoints);
    },

    async putMessage(message) {
      await assertOpen();
      checkMessage(message);
      if (messages.has(message.id)) return false;
      messages.set(message.id, { message: copyMessage(message), taker: null });
      return true;
    },

    async takeMessage(name, correlationKey, now, taker) {
      await assertOpen();
      checkMessageClock(now);
      const matching = [...messages.values()].filter(
        (entry) => entry.message.name === name && entry.message.correlationKey === correlationKey,
      );
      const picked = pickMessage(matching, now, taker);
      if (picked === undefined) return undefined;
      picked.taker = taker;
      return copyMessage(picked.message);
    },

    async deleteMessage(id) {
      await assertOpen();
      return messages.delete(id);
    },

    async expireMessages(now) {
      await assertOpen();
      checkMessageClock(now);
      let expired = 0;
      for (const [id, entry] of messages) {
        if (entry.message.expiresAt <= now) {
          messages.delete(id);
          expired++;
        }
      }
      return expired;
    },

    async putDeployment(input: DeploymentInput) {
      await assertOpen();
      const existing = deploymentsByDigest.get(input.digest);
      if (existing !== undefined) return { ...existing };
      let version = 1;
      for (const deployment of deploymentsInOrder) {
        if (deployment.definitionId === input.definitionId) version = Math.max(version, deployment.version + 1);
      }
      const deployment: Deployment = {
        definitionId: input.definitionId,
        digest: input.digest,
        xml: input.xml,
        deployedAt: input.deployedAt,
        version,
      };
      deploymentsInOrder.push(deployment);
      deploymentsByDigest.set(deployment.digest, deployment);
      return { ...deployment };
    },

    async getDeployment(digest) {
      await assertOpen();
      const deployment = deploymentsByDigest.get(digest);
      return deployment === undefined ? undefined : { ...deployment };
    },

    async deployments(definitionId) {
      await assertOpen();
      return deploymentsInOrder
        .filter((deployment) => definitionId === undefined || deployment.definitionId === definitionId)
        .map((deployment) => ({ ...deployment }));
    },

    async close() {
      // Idempotent so that a harness may close a repository a test already closed.
      closed = true;
      instances.clear();
      deploymentsInOrder.length = 0;
      deploymentsByDigest.clear();
      messages.clear();
    },
  };
}

function toStored(instanceId: string, entry: CheckpointEntry): StoredCheckpoint {
  return {
    instanceId,
    seq: entry.seq,
    parentSeq: entry.parentSeq,
    schema: entry.schema,
    definitionDigest: entry.definitionDigest,
    digest: entry.digest,
    bytes: copyBytes(entry.bytes),
    writes: entry.writes.map(copyWrite),
  };
}

function copyMeta(meta: InstanceMeta): InstanceMeta {
  return { ...meta, subscriptions: meta.subscriptions.map(({ name, key }) => ({ name, key })) };
}

function copyMessage(message: BufferedMessage): BufferedMessage {
  return {
    id: message.id,
    name: message.name,
    correlationKey: message.correlationKey,
    variables: copyBytes(message.variables),
    publishedAt: message.publishedAt,
    expiresAt: message.expiresAt,
  };
}

function copyWrite(write: PendingWrite): PendingWrite {
  return { taskId: write.taskId, index: write.index, value: copyBytes(write.value) };
}

/** A plain `Uint8Array` copy; `new Uint8Array(view)` copies even when handed a Node `Buffer`. */
function copyBytes(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}
