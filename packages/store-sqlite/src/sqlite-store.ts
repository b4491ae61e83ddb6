import {
  type BufferedMessage,
  CheckpointError,
  CheckpointErrorCode,
  type ClaimOptions,
  ConflictError,
  checkText,
  type Deployment,
  type DeploymentInput,
  type DueTimer,
  type ExpireOptions,
  type Fence,
  type HistoryQuery,
  type InstanceQuery,
  type InstanceSummary,
  isStorableText,
  type Lease,
  LeaseLostError,
  type ListOptions,
  type LogEntry,
  type LogReader,
  type PendingWrite,
  type PruneOptions,
  type PutCheckpoint,
  type Repository,
  type RewriteCheckpoint,
  type StoredCheckpoint,
} from '@thresher/checkpoint';
import {
  checkClaimArguments,
  checkDeploymentArguments,
  checkExpireArguments,
  checkFence,
  checkKeepLast,
  checkLeaseArguments,
  checkMessage,
  checkMessageClock,
  checkPutArguments,
  checkReaderArguments,
  checkRewriteArguments,
  checkWritesArguments,
  decideCopy,
  distinctStorableIds,
  historyRange,
  instancePage,
  integerPosition,
  logRead,
  storableFilters,
} from '@thresher/checkpoint/store-kit';
import {
  copyInstance,
  deleteInstance,
  pruneCheckpoints,
  putCheckpoint,
  putWrites,
  readCheckpoint,
  readHistory,
  readLatest,
  readLog,
  rewriteCheckpoint,
} from './checkpoints.js';
import { putDeployment, readDeployment, readDeployments } from './deployments.js';
import { isTransient, type SqliteDatabase, type SqliteTransaction } from './driver.js';
import { GroupCommit } from './group-commit.js';
import { InstanceUpdates } from './instance-update.js';
import { InstanceStatements, readDueTimers, readInstanceIds, readInstances, readSubscribers } from './instances.js';
import { CreateTokens, claimLeases, readHeldLease, releaseLease, renewLease, reserveLeaseTokens } from './leases.js';
import { putMessage, takeMessage } from './messages.js';
import { expireInstances, putReader, readReaders } from './retention.js';
import { fencedWrites, schemaFence } from './schema-fence.js';
import { type Statements, statements } from './statements.js';

/** The {@link Repository} on one SQLite file, as {@link createSqliteRepository} opens it. */
export interface SqliteRepository extends Repository {
  /** The absolute path of the database file, or `':memory:'`. */
  readonly path: string;
}

/**
 * The repository on one SQLite connection, configured and migrated by {@link createSqliteRepository}.
 *
 * @remarks
 * The driver is synchronous: every method does its work before the returned promise settles, and each is
 * one transaction. `put` runs in BEGIN IMMEDIATE, taking the write lock before it reads the latest seq, so
 * the check and the insert are atomic across connections and processes; `rewrite` likewise reads the stored
 * digest under the write lock before it updates the document. Every write transaction first checks the
 * file's schema version against this build's (`schema-fence.ts`): once a newer build migrated the file,
 * writes are refused with `StoreUpgradedError`.
 */
export class SqliteStore implements SqliteRepository {
  readonly path: string;
  readonly checksDeploymentsSeen = true;
  readonly #db: SqliteDatabase;
  readonly #sql: Statements;
  readonly #instanceStatements: InstanceStatements;
  readonly #updates: InstanceUpdates;
  readonly #createTokens: CreateTokens;
  /** Runs write work in one fenced transaction (`.immediate`): refused once a newer build migrated the file. */
  readonly #write: SqliteTransaction<[() => unknown], unknown>;
  /** Runs reads in one (deferred) transaction, so a checkpoint and its writes come from one snapshot. */
  readonly #read: SqliteTransaction<[() => unknown], unknown>;
  /** Checkpoint writes of one event-loop turn, committed together: statements only, run in its transaction. */
  readonly #group: GroupCommit;
  #closed = false;

  constructor(db: SqliteDatabase, path: string) {
    this.#db = db;
    this.path = path;
    this.#sql = statements(db);
    this.#instanceStatements = new InstanceStatements(db);
    this.#updates = new InstanceUpdates(db);
    this.#write = fencedWrites(db, path)((work: () => unknown) => work());
    this.#read = db.transaction((work: () => unknown) => work());
    this.#group = new GroupCommit(db, schemaFence(db, path));
    this.#createTokens = new CreateTokens((count) => this.#written(() => reserveLeaseTokens(this.#sql, count)));
  }

  async put(checkpoint: PutCheckpoint): Promise<Lease | undefined> {
    checkPutArguments(checkpoint);
    const createToken = checkpoint.claim ? this.#createToken() : undefined;
    return this.#grouped('put', () => putCheckpoint(this.#sql, this.#updates, checkpoint, createToken));
  }

  async rewrite(checkpoint: RewriteCheckpoint): Promise<void> {
    const { instanceId, seq } = checkpoint;
    checkRewriteArguments(checkpoint);
    // Nothing stored has such an id or digest, so there is no lease and no checkpoint to rewrite.
    if (!isStorableText(instanceId) || !isStorableText(checkpoint.expectedDigest)) {
      return this.#call('rewrite', () => {
        if (!isStorableText(instanceId)) checkFence(instanceId, checkpoint.fence, undefined);
        throw new ConflictError(instanceId, seq, `there is no checkpoint at seq ${seq} to rewrite`);
      });
    }
    this.#call('rewrite', () => this.#written(() => rewriteCheckpoint(this.#sql, checkpoint)));
  }

  async putWrites(instanceId: string, seq: number, writes: PendingWrite[], fence?: Fence): Promise<void> {
    checkWritesArguments(instanceId, seq, writes);
    await this.#grouped('putWrites', () => putWrites(this.#sql, instanceId, seq, writes, fence));
  }

  async get(instanceId: string, seq?: number): Promise<StoredCheckpoint | undefined> {
    if (!isStorableText(instanceId)) return this.#call('get', () => undefined);
    // One statement: a snapshot of its own, no transaction needed around it.
    return this.#call('get', () => readCheckpoint(this.#sql, instanceId, seq)) as StoredCheckpoint | undefined;
  }

  async getMany(instanceIds: readonly string[]): Promise<StoredCheckpoint[]> {
    const ids = distinctStorableIds(instanceIds);
    // One statement, however many ids: one snapshot.
    return this.#call('getMany', () => (ids.length === 0 ? [] : readLatest(this.#sql, ids))) as StoredCheckpoint[];
  }

  async list(instanceId: string, options: ListOptions = {}): Promise<StoredCheckpoint[]> {
    const range = historyRange(options);
    if (!isStorableText(instanceId)) return this.#call('list', () => []);
    return this.#call('list', () => this.#read(() => readHistory(this.#sql, instanceId, range))) as StoredCheckpoint[];
  }

  async history(query?: HistoryQuery): Promise<LogEntry[]> {
    const { after, instanceId, limit } = logRead(query);
    const from = after === null ? 0 : integerPosition(after);
    if (instanceId !== null && !isStorableText(instanceId)) return this.#call('history', () => []);
    const read = () => readLog(this.#sql, from, instanceId, limit);
    return this.#call('history', () => this.#read(read)) as LogEntry[];
  }

  async putReader(reader: LogReader): Promise<void> {
    checkReaderArguments(reader);
    const position = reader.position === null ? null : integerPosition(reader.position);
    this.#call('putReader', () => this.#written(() => putReader(this.#sql, reader, position)));
  }

  async readers(): Promise<LogReader[]> {
    return this.#call('readers', () => readReaders(this.#sql));
  }

  async deleteReader(name: string): Promise<boolean> {
    checkText('name', name);
    return this.#call('deleteReader', () => this.#written(() => this.#sql.deleteReader.run(name).changes > 0));
  }

  async expire(options: ExpireOptions): Promise<string[]> {
    checkExpireArguments(options);
    return this.#call('expire', () => this.#written(() => expireInstances(this.#sql, options)));
  }

  async delete(instanceId: string): Promise<void> {
    if (!isStorableText(instanceId)) return this.#call('delete', () => undefined);
    this.#call('delete', () => this.#written(() => deleteInstance(this.#sql, instanceId)));
  }

  async copy(sourceId: string, targetId: string): Promise<void> {
    checkText('targetId', targetId);
    // Nothing stored has such an id, so there is nothing to copy.
    if (!isStorableText(sourceId)) return this.#call('copy', () => decideCopy(sourceId, targetId, false, null));
    this.#call('copy', () => this.#written(() => copyInstance(this.#sql, sourceId, targetId)));
  }

  async prune(instanceId: string, options: PruneOptions): Promise<void> {
    checkKeepLast(options.keepLast);
    if (!isStorableText(instanceId)) return this.#call('prune', () => undefined);
    this.#call('prune', () => this.#written(() => pruneCheckpoints(this.#sql, instanceId, options.keepLast)));
  }

  async claim(options: ClaimOptions): Promise<Lease[]> {
    checkClaimArguments(options);
    return this.#call('claim', () => this.#written(() => claimLeases(this.#sql, options)));
  }

  async renew(lease: Lease, ttlMs: number, now: number): Promise<Lease> {
    checkLeaseArguments({ ttlMs, now });
    // Nothing stored has such an id or owner, so the lease cannot be held.
    if (!isStorableText(lease.instanceId) || !isStorableText(lease.owner)) {
      return this.#call('renew', () => {
        throw new LeaseLostError(lease.instanceId, lease.owner, lease.token, 'no lease is held');
      });
    }
    // Grouped like a put: an engine renews every lease it holds at once, which then commit together.
    return this.#grouped('renew', () => renewLease(this.#sql, lease, ttlMs, now));
  }

  async lease(instanceId: string): Promise<Lease | undefined> {
    if (!isStorableText(instanceId)) return this.#call('lease', () => undefined);
    return this.#call('lease', () => {
      const held = readHeldLease(this.#sql, instanceId);
      return held === undefined ? undefined : { instanceId, ...held };
    });
  }

  async leaseOwners(): Promise<string[]> {
    const read = () => (this.#sql.selectLeaseOwners.all() as { lease_owner: string }[]).map((row) => row.lease_owner);
    return this.#call('leaseOwners', () => this.#read(read)) as string[];
  }

  async release(lease: Lease): Promise<void> {
    if (!isStorableText(lease.instanceId) || !isStorableText(lease.owner))
      return this.#call('release', () => undefined);
    // Grouped like a put: an engine letting go of thousands of instances at once (close) commits them together.
    // No sync of its own (Repository.release): the next synced commit makes it durable.
    await this.#grouped('release', () => releaseLease(this.#sql, lease), false);
  }

  async dueTimers(now: number, limit: number): Promise<DueTimer[]> {
    return this.#call('dueTimers', () => readDueTimers(this.#sql, now, limit));
  }

  async subscriptions(name: string, key: string | null): Promise<string[]> {
    if (!isStorableText(name) || !isStorableText(key)) return this.#call('subscriptions', () => []);
    return this.#call('subscriptions', () => readSubscribers(this.#sql, name, key));
  }

  async instances(query: InstanceQuery = {}): Promise<InstanceSummary[]> {
    instancePage(query);
    if (!storableFilters(query)) return this.#call('instances', () => []);
    return this.#call('instances', () =>
      this.#read(() => readInstances(this.#sql, this.#instanceStatements, query)),
    ) as InstanceSummary[];
  }

  async instanceIds(query: InstanceQuery = {}): Promise<string[]> {
    instancePage(query);
    if (!storableFilters(query)) return this.#call('instanceIds', () => []);
    return this.#call('instanceIds', () => readInstanceIds(this.#instanceStatements, query)) as string[];
  }

  async putMessage(message: BufferedMessage): Promise<boolean> {
    checkMessage(message);
    return this.#call('putMessage', () => this.#written(() => putMessage(this.#sql, message)));
  }

  async takeMessage(
    name: string,
    correlationKey: string | null,
    now: number,
    taker: string,
  ): Promise<BufferedMessage | undefined> {
    checkMessageClock(now);
    checkText('taker', taker);
    // Nothing stored has such a name or key, so there is nothing to take.
    if (!isStorableText(name) || !isStorableText(correlationKey)) return this.#call('takeMessage', () => undefined);
    // IMMEDIATE: the write lock is taken before the select, so two connections never pick the same message.
    return this.#call('takeMessage', () =>
      this.#written(() => takeMessage(this.#sql, name, correlationKey, now, taker)),
    );
  }

  async deleteMessage(id: string): Promise<boolean> {
    if (!isStorableText(id)) return this.#call('deleteMessage', () => false);
    return this.#call('deleteMessage', () => this.#written(() => this.#sql.deleteMessage.run(id).changes > 0));
  }

  async expireMessages(now: number): Promise<number> {
    checkMessageClock(now);
    return this.#call('expireMessages', () => this.#written(() => this.#sql.expireMessages.run(now).changes));
  }

  async putDeployment(deployment: DeploymentInput): Promise<Deployment> {
    checkDeploymentArguments(deployment);
    return this.#call('putDeployment', () => this.#written(() => putDeployment(this.#sql, deployment)));
  }

  async getDeployment(digest: string): Promise<Deployment | undefined> {
    if (!isStorableText(digest)) return this.#call('getDeployment', () => undefined);
    return this.#call('getDeployment', () => readDeployment(this.#sql, digest));
  }

  async deployments(definitionId?: string): Promise<Deployment[]> {
    if (!isStorableText(definitionId)) return this.#call('deployments', () => []);
    return this.#call('deployments', () => readDeployments(this.#sql, definitionId));
  }

  /** Close the connection (checkpointing the WAL into the file). Closing again is a no-op. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#group.flush();
    this.#closed = true;
    this.#call('close', () => this.#db.close(), true);
  }

  /**
   * Run driver work, refusing it once closed and classifying driver failures as store errors. The writes
   * queued for group commit go first: what was issued before this operation is committed before it runs.
   */
  #call<T>(operation: string, work: () => T, closing = false): T {
    this.#assertOpen(operation, closing);
    this.#group.flush();
    try {
      return work();
    } catch (error) {
      throw this.#classified(operation, error);
    }
  }

  /** Write work in one fenced IMMEDIATE transaction, typed as the work returns. */
  #written<T>(work: () => T): T {
    return this.#write.immediate(work) as T;
  }

  /**
   * A token for the lease a first put's claim takes, taken when the put is issued: reserving a block commits
   * on its own, outside any batch, and does not flush the writes queued before (they stay one batch).
   */
  #createToken(): number {
    this.#assertOpen('put');
    try {
      return this.#createTokens.take();
    } catch (error) {
      throw this.#classified('put', error);
    }
  }

  /** A checkpoint write, committed with the others of this event-loop turn (`GroupCommit`). */
  async #grouped<T>(operation: string, work: () => T, durable = true): Promise<T> {
    this.#assertOpen(operation);
    try {
      return await this.#group.submit(work, durable);
    } catch (error) {
      throw this.#classified(operation, error);
    }
  }

  #assertOpen(operation: string, closing = false): void {
    if (this.#closed && !closing) {
      throw new CheckpointError(
        CheckpointErrorCode.Store,
        `${operation} on the SQLite repository ${this.path} after it was closed; open a new one`,
      );
    }
  }

  #classified(operation: string, error: unknown): unknown {
    if (CheckpointError.is(error)) return error;
    return new CheckpointError(
      CheckpointErrorCode.Store,
      `${operation} on the SQLite database ${this.path} failed: ${(error as Error)?.message ?? String(error)}`,
      { cause: error, retryable: isTransient(error) },
    );
  }
}
