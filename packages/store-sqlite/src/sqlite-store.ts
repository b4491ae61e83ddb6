import {
  type BufferedMessage,
  CheckpointError,
  CheckpointErrorCode,
  type ClaimOptions,
  type Deployment,
  type DeploymentInput,
  type DueTimer,
  type ExpireOptions,
  type Fence,
  type InstanceQuery,
  type InstanceSummary,
  type JobActivation,
  type JobLock,
  type JobOffer,
  type Lease,
  type LogEntry,
  type LogReader,
  type PendingWrite,
  type PutCheckpoint,
  type Repository,
  type RewriteCheckpoint,
  type RowBatch,
  type RowPage,
  type RowSearch,
  type StoredCheckpoint,
} from '@thresher/checkpoint';
import { CheckedStore, type HistoryRange, integerPosition, type LogRead } from '@thresher/checkpoint/store-kit';
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
import { activateJobs, offerJob, readJobLock, relockJob } from './jobs.js';
import { CreateTokens, claimLeases, readHeldLease, releaseLease, renewLease, reserveLeaseTokens } from './leases.js';
import { putMessage, takeMessage } from './messages.js';
import { expireInstances, putReader, readReaders } from './retention.js';
import { fencedWrites, schemaFence } from './schema-fence.js';
import { RowStatements } from './search-rows.js';
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
export class SqliteStore extends CheckedStore implements SqliteRepository {
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
  readonly #rows: RowStatements;
  #closed = false;

  constructor(db: SqliteDatabase, path: string) {
    super();
    this.#db = db;
    this.path = path;
    this.#sql = statements(db);
    this.#instanceStatements = new InstanceStatements(db);
    this.#rows = new RowStatements(db);
    this.#updates = new InstanceUpdates(db);
    this.#write = fencedWrites(db, path)((work: () => unknown) => work());
    this.#read = db.transaction((work: () => unknown) => work());
    this.#group = new GroupCommit(db, schemaFence(db, path));
    this.#createTokens = new CreateTokens((count) => this.#written(() => reserveLeaseTokens(this.#sql, count)));
  }

  async readers(): Promise<LogReader[]> {
    return this.#call('readers', () => readReaders(this.#sql));
  }

  async leaseOwners(): Promise<string[]> {
    const read = () => (this.#sql.selectLeaseOwners.all() as { lease_owner: string }[]).map((row) => row.lease_owner);
    return this.#call('leaseOwners', () => this.#read(read)) as string[];
  }

  protected async putChecked(checkpoint: PutCheckpoint): Promise<Lease | undefined> {
    const createToken = checkpoint.claim ? this.#createToken() : undefined;
    return this.#grouped('put', () => putCheckpoint(this.#sql, this.#updates, checkpoint, createToken));
  }

  protected async rewriteChecked(checkpoint: RewriteCheckpoint): Promise<void> {
    this.#call('rewrite', () => this.#written(() => rewriteCheckpoint(this.#sql, checkpoint)));
  }

  protected async putWritesChecked(
    instanceId: string,
    seq: number,
    writes: PendingWrite[],
    fence: Fence | undefined,
  ): Promise<void> {
    await this.#grouped('putWrites', () => putWrites(this.#sql, instanceId, seq, writes, fence));
  }

  protected async getChecked(instanceId: string, seq: number | undefined): Promise<StoredCheckpoint | undefined> {
    // One statement: a snapshot of its own, no transaction needed around it.
    return this.#call('get', () => readCheckpoint(this.#sql, instanceId, seq)) as StoredCheckpoint | undefined;
  }

  protected async getManyChecked(instanceIds: string[]): Promise<StoredCheckpoint[]> {
    // One statement, however many ids: one snapshot.
    return this.#call('getMany', () => readLatest(this.#sql, instanceIds)) as StoredCheckpoint[];
  }

  protected async listChecked(instanceId: string, range: HistoryRange): Promise<StoredCheckpoint[]> {
    return this.#call('list', () => this.#read(() => readHistory(this.#sql, instanceId, range))) as StoredCheckpoint[];
  }

  protected async historyChecked({ after, instanceId, limit }: LogRead): Promise<LogEntry[]> {
    const from = after === null ? 0 : integerPosition(after);
    const read = () => readLog(this.#sql, from, instanceId, limit);
    return this.#call('history', () => this.#read(read)) as LogEntry[];
  }

  protected async putReaderChecked(reader: LogReader): Promise<void> {
    const position = reader.position === null ? null : integerPosition(reader.position);
    this.#call('putReader', () => this.#written(() => putReader(this.#sql, reader, position)));
  }

  protected async deleteReaderChecked(name: string): Promise<boolean> {
    return this.#call('deleteReader', () => this.#written(() => this.#sql.deleteReader.run(name).changes > 0));
  }

  protected async expireChecked(options: ExpireOptions): Promise<string[]> {
    return this.#call('expire', () => this.#written(() => expireInstances(this.#sql, options)));
  }

  protected async deleteChecked(instanceId: string): Promise<void> {
    this.#call('delete', () => this.#written(() => deleteInstance(this.#sql, instanceId)));
  }

  protected async copyChecked(sourceId: string, targetId: string): Promise<void> {
    this.#call('copy', () => this.#written(() => copyInstance(this.#sql, sourceId, targetId)));
  }

  protected async pruneChecked(instanceId: string, keepLast: number): Promise<void> {
    this.#call('prune', () => this.#written(() => pruneCheckpoints(this.#sql, instanceId, keepLast)));
  }

  protected async claimChecked(options: ClaimOptions): Promise<Lease[]> {
    return this.#call('claim', () => this.#written(() => claimLeases(this.#sql, options)));
  }

  protected async renewChecked(lease: Lease, ttlMs: number, now: number): Promise<Lease> {
    // Grouped like a put: an engine renews every lease it holds at once, which then commit together.
    return this.#grouped('renew', () => renewLease(this.#sql, lease, ttlMs, now));
  }

  protected async leaseChecked(instanceId: string): Promise<Lease | undefined> {
    return this.#call('lease', () => {
      const held = readHeldLease(this.#sql, instanceId);
      return held === undefined ? undefined : { instanceId, ...held };
    });
  }

  protected async releaseChecked(lease: Lease): Promise<void> {
    // Grouped like a put: an engine letting go of thousands of instances at once (close) commits them together.
    // No sync of its own (Repository.release): the next synced commit makes it durable.
    await this.#grouped('release', () => releaseLease(this.#sql, lease), false);
  }

  protected async dueTimersChecked(now: number, limit: number): Promise<DueTimer[]> {
    return this.#call('dueTimers', () => readDueTimers(this.#sql, now, limit));
  }

  protected async subscriptionsChecked(name: string, key: string | null): Promise<string[]> {
    return this.#call('subscriptions', () => readSubscribers(this.#sql, name, key));
  }

  protected async instancesChecked(query: InstanceQuery): Promise<InstanceSummary[]> {
    return this.#call('instances', () =>
      this.#read(() => readInstances(this.#sql, this.#instanceStatements, query)),
    ) as InstanceSummary[];
  }

  protected async instanceIdsChecked(query: InstanceQuery): Promise<string[]> {
    return this.#call('instanceIds', () => readInstanceIds(this.#instanceStatements, query)) as string[];
  }

  protected async putMessageChecked(message: BufferedMessage): Promise<boolean> {
    return this.#call('putMessage', () => this.#written(() => putMessage(this.#sql, message)));
  }

  protected async takeMessageChecked(
    names: readonly string[],
    correlationKey: string | null,
    now: number,
    taker: string,
  ): Promise<BufferedMessage | undefined> {
    // IMMEDIATE: the write lock is taken before the select, so two connections never pick the same message.
    return this.#call('takeMessage', () =>
      this.#written(() => takeMessage(this.#sql, names, correlationKey, now, taker)),
    );
  }

  protected async deleteMessageChecked(id: string): Promise<boolean> {
    return this.#call('deleteMessage', () => this.#written(() => this.#sql.deleteMessage.run(id).changes > 0));
  }

  protected async expireMessagesChecked(now: number): Promise<number> {
    return this.#call('expireMessages', () => this.#written(() => this.#sql.expireMessages.run(now).changes));
  }

  protected async offerJobChecked(offer: JobOffer): Promise<boolean> {
    return this.#call('offerJob', () => this.#written(() => offerJob(this.#sql, offer)));
  }

  protected async withdrawJobChecked(instanceId: string, jobId: string): Promise<boolean> {
    return this.#call('withdrawJob', () => this.#written(() => this.#sql.deleteJob.run(instanceId, jobId).changes > 0));
  }

  protected async activateJobsChecked(activation: JobActivation): Promise<JobLock[]> {
    return this.#call('activateJobs', () => this.#written(() => activateJobs(this.#sql, activation)));
  }

  protected async relockJobChecked(
    job: Pick<JobLock, 'instanceId' | 'jobId' | 'attempt'>,
    timeoutMs: number,
    now: number,
  ): Promise<JobLock | undefined> {
    return this.#call('relockJob', () => this.#written(() => relockJob(this.#sql, job, timeoutMs, now)));
  }

  protected async jobLockChecked(instanceId: string, jobId: string): Promise<JobLock | undefined> {
    return this.#call('jobLock', () => readJobLock(this.#sql, instanceId, jobId));
  }

  protected async putRowsChecked(batch: RowBatch): Promise<boolean> {
    return this.#call('putRows', () => this.#written(() => this.#rows.put(batch)));
  }

  protected async projectionPositionChecked(projection: string): Promise<string | null> {
    return this.#call('projectionPosition', () => this.#rows.position(projection));
  }

  protected async searchRowsChecked(search: RowSearch): Promise<RowPage> {
    return this.#call('searchRows', () => this.#read(() => this.#rows.search(search))) as RowPage;
  }

  protected async putDeploymentChecked(deployment: DeploymentInput): Promise<Deployment> {
    return this.#call('putDeployment', () => this.#written(() => putDeployment(this.#sql, deployment)));
  }

  protected async getDeploymentChecked(digest: string): Promise<Deployment | undefined> {
    return this.#call('getDeployment', () => readDeployment(this.#sql, digest));
  }

  protected async deploymentsChecked(definitionId: string | undefined): Promise<Deployment[]> {
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
    this.#group.commitQueued();
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

  protected assertOpen(operation: string): void {
    this.#assertOpen(operation);
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
