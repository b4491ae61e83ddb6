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
  LeaseLostError,
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
import { CheckedStore, type HistoryRange, type LogRead } from '@thresher/checkpoint/store-kit';
import {
  copyInstance,
  deleteInstance,
  positionParams,
  pruneCheckpoints,
  putInOneStatement,
  putWrites,
  readCheckpoint,
  readHistory,
  readLatest,
  readLog,
  rewriteCheckpoint,
} from './checkpoints.js';
import { putDeployment, readDeployment, readDeployments } from './deployments.js';
import {
  describe,
  inTransaction,
  isTransient,
  type PgClientLike,
  type PgPoolLike,
  type PgQueryable,
} from './driver.js';
import { type GroupedWrite, PgGroupCommit } from './group-commit.js';
import { readDueTimers, readInstanceIds, readInstances, readSubscribers } from './instances.js';
import { activateJobs, offerJob, readJobLock, relockJob, withdrawJob } from './jobs.js';
import { claimLeases, type JoinedRelease, joinedRelease, readLease, releaseUnflushed, renewLease } from './leases.js';
import { deleteMessage, expireMessages, putMessage, takeMessage } from './messages.js';
import { migrationLockKey, quoteSchema } from './migrations.js';
import { type JoinedPut, joinedPut, putFully, putsTogether } from './put-batch.js';
import { expireInstances, putReader, readReaders } from './retention.js';
import { checkFencedBegin, fencedBegin } from './schema-fence.js';
import { PgRows } from './search-rows.js';
import { type PutFunctionCall, putStatements, type Statements, statements } from './statements.js';

/** The {@link Repository} on a PostgreSQL schema, as {@link createPostgresRepository} opens it. */
export interface PostgresRepository extends Repository {
  /** The schema holding the tables. */
  readonly schema: string;
}

/**
 * The repository on a PostgreSQL pool, its schema migrated by {@link createPostgresRepository}.
 *
 * @remarks
 * Each write is one transaction at READ COMMITTED that first locks the instance's row (`SELECT … FOR
 * UPDATE`), so writers of one instance — in any process — queue there, and `put` decides with
 * `decidePut` on what the lock holder sees. The creation of an instance, which has no row to lock yet,
 * is serialised by the primary key: the losing insert waits for the winner and decides again under its lock.
 * `get` reads a checkpoint with its writes in one statement (one snapshot); `list` reads a page and its writes
 * in one REPEATABLE READ snapshot. Every write transaction opens by
 * checking the schema version against this build's (`schema-fence.ts`): once a newer build migrated the
 * schema, writes are refused with `StoreUpgradedError`. The common `put` (a first checkpoint, or the next one
 * under the held lease) is one statement doing all of that in the server (`put_checkpoint`,
 * put-function-v11.ts), so a put with no other write waiting costs one round trip.
 */
export class PostgresStore extends CheckedStore implements PostgresRepository {
  readonly schema: string;
  readonly checksDeploymentsSeen = true;
  readonly #pool: PgPoolLike;
  readonly #owned: boolean;
  readonly #where: string;
  readonly #sql: Statements;
  /** What every write transaction opens with: BEGIN and the schema fence (`schema-fence.ts`). */
  readonly #begin: string;
  /** How the common put calls `put_checkpoint`: its statements, and the schema fence as it takes it. */
  readonly #putCall: PutFunctionCall;
  /** Checkpoint writes waiting together, committed in one transaction (a lone one on its own), puts joined. */
  readonly #group = new PgGroupCommit<JoinedPut>(
    (work) => this.#fenced(work),
    (client, run) => putsTogether(client, this.#sql, run),
  );
  /**
   * Releases waiting together, in one unflushed statement of their own. A queue apart from the writes': a
   * release follows its instance's last write (the engine claims again only once it finished), so nothing
   * orders it with other instances' writes, and the next instance's first put need not wait behind it.
   */
  readonly #releases = new PgGroupCommit<JoinedRelease, PgQueryable>(
    (work) => work(this.#pool),
    (db, run) =>
      releaseUnflushed(
        db,
        this.#sql,
        run.map(({ lease }) => lease),
        this.#putCall,
      ),
  );
  readonly #rows: PgRows;
  #closed = false;

  constructor(pool: PgPoolLike, options: { schema: string; where: string; owned: boolean; prepared: boolean }) {
    super();
    this.#pool = pool;
    this.schema = options.schema;
    this.#where = options.where;
    this.#owned = options.owned;
    this.#sql = statements(quoteSchema(options.schema));
    this.#rows = new PgRows(quoteSchema(options.schema));
    this.#begin = fencedBegin(options.schema, quoteSchema(options.schema));
    this.#putCall = {
      statements: putStatements(this.#sql, options.prepared),
      lockKey: migrationLockKey(options.schema),
      where: this.#fenceWhere(),
    };
  }

  async readers(): Promise<LogReader[]> {
    return this.#call('readers', () => readReaders(this.#pool, this.#sql));
  }

  async leaseOwners(): Promise<string[]> {
    return this.#call('leaseOwners', async () => {
      const { rows } = await this.#pool.query<{ lease_owner: string }>(this.#sql.selectLeaseOwners, []);
      return rows.map((row) => row.lease_owner);
    });
  }

  protected async putChecked(checkpoint: PutCheckpoint): Promise<Lease | undefined> {
    // The common put is one statement (a batch's puts share one); what it leaves undecided runs the full
    // rules, which give the exact outcome: in a fenced transaction of its own when alone, in the batch's when batched.
    const fully = (client: PgClientLike) => putFully(client, this.#sql, checkpoint);
    return this.#grouped('put', {
      key: checkpoint.instanceId,
      alone: async () => {
        const put = await putInOneStatement(this.#pool, this.#putCall, checkpoint);
        return put.stored ? put.lease : this.#fenced(fully);
      },
      inBatch: async (client) => {
        const put = await putInOneStatement(client, this.#putCall, checkpoint);
        return put.stored ? put.lease : fully(client);
      },
      joinable: joinedPut(checkpoint),
    });
  }

  protected async rewriteChecked(checkpoint: RewriteCheckpoint): Promise<void> {
    await this.#transaction('rewrite', (client) => rewriteCheckpoint(client, this.#sql, checkpoint));
  }

  protected async putWritesChecked(
    instanceId: string,
    seq: number,
    writes: PendingWrite[],
    fence: Fence | undefined,
  ): Promise<void> {
    const work = (client: PgClientLike) => putWrites(client, this.#sql, instanceId, seq, writes, fence);
    await this.#groupedWork('putWrites', instanceId, work);
  }

  protected async getChecked(instanceId: string, seq: number | undefined): Promise<StoredCheckpoint | undefined> {
    // One statement: its own snapshot, so no transaction around it (one round trip, not four).
    return this.#call('get', () => readCheckpoint(this.#pool, this.#sql, instanceId, seq));
  }

  protected async getManyChecked(instanceIds: string[]): Promise<StoredCheckpoint[]> {
    // One statement, however many ids: one snapshot, one round trip.
    return this.#call('getMany', () => readLatest(this.#pool, this.#sql, instanceIds));
  }

  protected async listChecked(instanceId: string, range: HistoryRange): Promise<StoredCheckpoint[]> {
    return this.#snapshot('list', (client) => readHistory(client, this.#sql, instanceId, range));
  }

  protected async historyChecked({ after, instanceId, limit }: LogRead): Promise<LogEntry[]> {
    const from = positionParams(after);
    return this.#snapshot('history', (client) => readLog(client, this.#sql, from, instanceId, limit));
  }

  protected async putReaderChecked(reader: LogReader): Promise<void> {
    const at = positionParams(reader.position);
    await this.#transaction('putReader', (client) => putReader(client, this.#sql, reader, at));
  }

  protected async deleteReaderChecked(name: string): Promise<boolean> {
    const { rowCount } = await this.#transaction('deleteReader', (client) =>
      client.query(this.#sql.deleteReader, [name]),
    );
    return (rowCount ?? 0) > 0;
  }

  protected async expireChecked(options: ExpireOptions): Promise<string[]> {
    return this.#transaction('expire', (client) => expireInstances(client, this.#sql, options));
  }

  protected async deleteChecked(instanceId: string): Promise<void> {
    await this.#transaction('delete', (client) => deleteInstance(client, this.#sql, instanceId));
  }

  protected async copyChecked(sourceId: string, targetId: string): Promise<void> {
    await this.#transaction('copy', (client) => copyInstance(client, this.#sql, sourceId, targetId));
  }

  protected async pruneChecked(instanceId: string, keepLast: number): Promise<void> {
    await this.#transaction('prune', (client) => pruneCheckpoints(client, this.#sql, instanceId, keepLast));
  }

  protected async instancesChecked(query: InstanceQuery): Promise<InstanceSummary[]> {
    return this.#call('instances', () => readInstances(this.#pool, this.#sql, query));
  }

  protected async instanceIdsChecked(query: InstanceQuery): Promise<string[]> {
    return this.#call('instanceIds', () => readInstanceIds(this.#pool, this.#sql, query));
  }

  protected async claimChecked(options: ClaimOptions): Promise<Lease[]> {
    return this.#transaction('claim', (client) => claimLeases(client, this.#sql, options));
  }

  protected async renewChecked(lease: Lease, ttlMs: number, now: number): Promise<Lease> {
    const work = (client: PgClientLike) => renewLease(client, this.#sql, lease, ttlMs, now);
    // Grouped like a put: an engine renews every lease it holds at once, which then commit together.
    const renewed = await this.#groupedWork('renew', lease.instanceId, work);
    if (renewed instanceof LeaseLostError) throw renewed;
    return renewed;
  }

  protected async leaseChecked(instanceId: string): Promise<Lease | undefined> {
    return this.#call('lease', () => readLease(this.#pool, this.#sql, instanceId));
  }

  protected async releaseChecked(lease: Lease): Promise<void> {
    // Releases issued together (an engine letting go of thousands of instances at close) share one statement.
    const alone = (db: PgQueryable) => releaseUnflushed(db, this.#sql, [lease], this.#putCall).then(() => undefined);
    await this.#call('release', () =>
      this.#releases.submit({
        key: lease.instanceId,
        alone: () => alone(this.#pool),
        inBatch: alone,
        joinable: joinedRelease(lease),
      }),
    );
  }

  protected async dueTimersChecked(now: number, limit: number): Promise<DueTimer[]> {
    return this.#call('dueTimers', () => readDueTimers(this.#pool, this.#sql, now, limit));
  }

  protected async subscriptionsChecked(name: string, key: string | null): Promise<string[]> {
    return this.#call('subscriptions', () => readSubscribers(this.#pool, this.#sql, name, key));
  }

  protected async putMessageChecked(message: BufferedMessage): Promise<boolean> {
    return this.#transaction('putMessage', (client) => putMessage(client, this.#sql, message));
  }

  protected async takeMessageChecked(
    names: readonly string[],
    correlationKey: string | null,
    now: number,
    taker: string,
  ): Promise<BufferedMessage | undefined> {
    return this.#transaction('takeMessage', (client) =>
      takeMessage(client, this.#sql, names, correlationKey, now, taker),
    );
  }

  protected async deleteMessageChecked(id: string): Promise<boolean> {
    return this.#transaction('deleteMessage', (client) => deleteMessage(client, this.#sql, id));
  }

  protected async expireMessagesChecked(now: number): Promise<number> {
    return this.#transaction('expireMessages', (client) => expireMessages(client, this.#sql, now));
  }

  protected async putRowsChecked(batch: RowBatch): Promise<boolean> {
    return this.#call('putRows', () => this.#rows.put(this.#pool, batch));
  }

  protected async projectionPositionChecked(projection: string): Promise<string | null> {
    return this.#call('projectionPosition', () => this.#rows.position(this.#pool, projection));
  }

  protected async searchRowsChecked(search: RowSearch): Promise<RowPage> {
    return this.#call('searchRows', () => this.#rows.search(this.#pool, search));
  }

  protected async offerJobChecked(offer: JobOffer): Promise<boolean> {
    return this.#call('offerJob', () => offerJob(this.#pool, this.#sql, offer));
  }

  protected async withdrawJobChecked(instanceId: string, jobId: string): Promise<boolean> {
    return this.#call('withdrawJob', () => withdrawJob(this.#pool, this.#sql, instanceId, jobId));
  }

  protected async activateJobsChecked(activation: JobActivation): Promise<JobLock[]> {
    return this.#call('activateJobs', () => activateJobs(this.#pool, this.#sql, activation));
  }

  protected async relockJobChecked(
    job: Pick<JobLock, 'instanceId' | 'jobId' | 'attempt'>,
    timeoutMs: number,
    now: number,
  ): Promise<JobLock | undefined> {
    return this.#call('relockJob', () => relockJob(this.#pool, this.#sql, job, timeoutMs, now));
  }

  protected async jobLockChecked(instanceId: string, jobId: string): Promise<JobLock | undefined> {
    return this.#call('jobLock', () => readJobLock(this.#pool, this.#sql, instanceId, jobId));
  }

  protected async putDeploymentChecked(deployment: DeploymentInput): Promise<Deployment> {
    return this.#transaction('putDeployment', (client) => putDeployment(client, this.#sql, deployment));
  }

  protected async getDeploymentChecked(digest: string): Promise<Deployment | undefined> {
    return this.#call('getDeployment', () => readDeployment(this.#pool, this.#sql, digest));
  }

  protected async deploymentsChecked(definitionId: string | undefined): Promise<Deployment[]> {
    return this.#call('deployments', () => readDeployments(this.#pool, this.#sql, definitionId));
  }

  /** Refuse further calls; end the pool if the repository opened it. Closing again is a no-op. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([this.#group.idle(), this.#releases.idle()]);
    if (this.#owned) await this.#call('close', () => this.#pool.end(), true);
  }

  /**
   * Run write `work` in one READ COMMITTED transaction on one connection, once the schema fence let it in (a
   * newer build's migration refuses it with `StoreUpgradedError`); roll back if it throws.
   */
  #transaction<T>(operation: string, work: (client: PgClientLike) => Promise<T>): Promise<T> {
    return this.#call(operation, () => this.#fenced(work));
  }

  /** A checkpoint write, committed with the others waiting at the same time, or alone (`PgGroupCommit`). */
  #grouped<T>(operation: string, write: GroupedWrite<T, JoinedPut>): Promise<T> {
    return this.#call(operation, () => this.#group.submit(write));
  }

  /** A write of instance `key` grouped like a put: in the batch's transaction, or alone in a fenced one. */
  #groupedWork<T>(operation: string, key: string, work: (client: PgClientLike) => Promise<T>): Promise<T> {
    return this.#grouped(operation, { key, alone: () => this.#fenced(work), inBatch: work });
  }

  /** One transaction, begun under the schema fence (refused once a newer build migrated the schema). */
  #fenced<T>(work: (client: PgClientLike) => Promise<T>): Promise<T> {
    const where = this.#fenceWhere();
    return inTransaction(this.#pool, this.#begin, work, (opened) => checkFencedBegin(opened, where));
  }

  /** The schema as the fence's refusal names it. */
  #fenceWhere(): string {
    return `the PostgreSQL schema "${this.schema}" in ${this.#where}`;
  }

  /** Run reads in one REPEATABLE READ, READ ONLY transaction, so a checkpoint and its writes agree. */
  #snapshot<T>(operation: string, work: (client: PgClientLike) => Promise<T>): Promise<T> {
    return this.#call(operation, () =>
      inTransaction(this.#pool, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', work),
    );
  }

  protected assertOpen(operation: string): void {
    if (this.#closed) {
      throw new CheckpointError(
        CheckpointErrorCode.Store,
        `${operation} on the PostgreSQL repository (schema "${this.schema}" in ${this.#where}) after it was closed; open a new one`,
      );
    }
  }

  /** Run driver work, refusing it once closed and classifying driver failures as store errors. */
  async #call<T>(operation: string, work: () => Promise<T>, closing = false): Promise<T> {
    if (!closing) this.assertOpen(operation);
    try {
      return await work();
    } catch (error) {
      if (CheckpointError.is(error)) throw error;
      throw new CheckpointError(
        CheckpointErrorCode.Store,
        `${operation} on the PostgreSQL schema "${this.schema}" in ${this.#where} failed: ${describe(error)}`,
        { cause: error, retryable: isTransient(error) },
      );
    }
  }
}
