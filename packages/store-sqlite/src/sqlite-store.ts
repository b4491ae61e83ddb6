import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import {
  type BufferedMessage,
  CheckpointError,
  CheckpointErrorCode,
  type ClaimOptions,
  ConflictError,
  checkFence,
  checkKeepLast,
  checkLeaseArguments,
  checkMessage,
  checkMessageClock,
  checkRenew,
  type Deployment,
  type DeploymentInput,
  type DueTimer,
  decideCopy,
  decidePut,
  decideRewrite,
  type Fence,
  type HeldLease,
  type InstanceQuery,
  type InstanceStatus,
  type InstanceSummary,
  type Lease,
  LeaseLostError,
  type ListOptions,
  type MessageSubscription,
  type PendingWrite,
  type PruneOptions,
  type PutCheckpoint,
  type Repository,
  type RewriteCheckpoint,
  type StoredCheckpoint,
  UnencodableValueError,
} from '@thresher/checkpoint';
import Database from 'better-sqlite3';
import { assertKnownSchema, migrate, schemaVersion } from './migrations.js';
import {
  type CheckpointRow,
  type DeploymentRow,
  type InstanceFilterShape,
  type InstanceRow,
  type LeaseRow,
  type MessageRow,
  SQL,
  type SubscriptionRow,
  selectInstancesSql,
  type WriteRow,
} from './sql.js';

/** The part of a prepared statement the repository uses (better-sqlite3's `Statement` has this shape). */
export interface SqliteStatement {
  run(...params: unknown[]): { changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** A function wrapped in a transaction: call it for BEGIN DEFERRED, or `.immediate` for BEGIN IMMEDIATE. */
export interface SqliteTransaction<TArgs extends unknown[], TResult> {
  (...args: TArgs): TResult;
  immediate(...args: TArgs): TResult;
}

/**
 * The part of a synchronous SQLite connection the repository uses, described structurally so that the
 * store depends on a shape rather than on the driver's types (better-sqlite3's `Database` satisfies it).
 */
export interface SqliteDatabase {
  prepare(source: string): SqliteStatement;
  exec(source: string): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<TArgs extends unknown[], TResult>(fn: (...args: TArgs) => TResult): SqliteTransaction<TArgs, TResult>;
  close(): unknown;
}

/** Options of {@link createSqliteRepository}. */
export interface SqliteRepositoryOptions {
  /** The database file; missing parent directories are created. `':memory:'` for a private in-memory database. */
  path: string;
  /**
   * `FULL` (the default) syncs the WAL on every commit, so an acknowledged `put` survives power loss.
   * `NORMAL` syncs only at WAL checkpoints: still consistent after a crash, but the last commits before a
   * power loss (not a process crash) may be lost.
   */
  synchronous?: 'FULL' | 'NORMAL';
}

/** How long a connection waits for another connection's (or process's) write lock before failing. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * Open (creating if needed) a SQLite database as a {@link Repository}.
 *
 * @remarks
 * The connection runs in WAL mode with `foreign_keys` on and a 5 s busy timeout, so several processes may
 * open the same file: readers never block the writer, and writers queue on SQLite's lock. The schema is
 * migrated on open; a database written by a newer build is refused with a `CheckpointError` whose code is
 * `THRESHER_FUTURE_SCHEMA`.
 *
 * @example
 * ```ts
 * const repository = createSqliteRepository({ path: './.thresher/thresher.db' });
 * try {
 *   await repository.put(checkpoint);
 * } finally {
 *   await repository.close();
 * }
 * ```
 */
export function createSqliteRepository(options: SqliteRepositoryOptions): SqliteRepository {
  const { path } = options;
  const synchronous = options.synchronous ?? 'FULL';
  if (typeof path !== 'string' || path === '') {
    throw new CheckpointError(CheckpointErrorCode.Store, 'the SQLite repository needs a file path (or ":memory:")');
  }
  if (synchronous !== 'FULL' && synchronous !== 'NORMAL') {
    throw new CheckpointError(
      CheckpointErrorCode.Store,
      `synchronous must be 'FULL' or 'NORMAL', not ${JSON.stringify(synchronous)}`,
    );
  }
  const inMemory = path === ':memory:';
  const name = inMemory ? path : resolve(path);
  let db: SqliteDatabase;
  try {
    if (!inMemory) mkdirSync(dirname(name), { recursive: true });
    db = new Database(name);
  } catch (cause) {
    throw new CheckpointError(CheckpointErrorCode.Store, `cannot open the SQLite database ${name}`, { cause });
  }
  try {
    // Set first, so that everything below waits for a lock another process holds instead of failing.
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // Checked before anything writes to the file (switching to WAL does): a newer database stays untouched.
    assertKnownSchema(name, schemaVersion(db));
    const journalMode = db.pragma('journal_mode = WAL', { simple: true });
    if (!inMemory && journalMode !== 'wal') {
      throw new CheckpointError(
        CheckpointErrorCode.Store,
        `the SQLite database ${name} cannot use WAL mode (journal_mode is ${String(journalMode)}); put it on a local file system`,
      );
    }
    db.pragma(`synchronous = ${synchronous}`);
    db.pragma('foreign_keys = ON');
    migrate(db, name);
    return new SqliteRepository(db, name);
  } catch (error) {
    db.close();
    throw CheckpointError.is(error)
      ? error
      : new CheckpointError(CheckpointErrorCode.Store, `cannot open the SQLite database ${name}`, { cause: error });
  }
}

type Statements = Record<keyof typeof SQL, SqliteStatement>;

/**
 * The {@link Repository} on one SQLite connection. Create it with {@link createSqliteRepository}, which
 * configures and migrates the connection; the constructor expects that done.
 *
 * @remarks
 * The driver is synchronous: every method does its work before the returned promise settles, and each is
 * one transaction. `put` runs in BEGIN IMMEDIATE, taking the write lock before it reads the latest seq, so
 * the check and the insert are atomic across connections and processes; `rewrite` likewise reads the stored
 * digest under the write lock before it updates the document.
 */
export class SqliteRepository implements Repository {
  /** The absolute path of the database file, or `':memory:'`. */
  readonly path: string;
  readonly #db: SqliteDatabase;
  readonly #sql: Statements;
  readonly #instanceQueries = new Map<string, SqliteStatement>();
  readonly #put: SqliteTransaction<[PutCheckpoint], void>;
  readonly #rewrite: SqliteTransaction<[RewriteCheckpoint], void>;
  readonly #putWrites: SqliteTransaction<[string, number, PendingWrite[], Fence | undefined], void>;
  readonly #delete: SqliteTransaction<[string], void>;
  readonly #copy: SqliteTransaction<[string, string], void>;
  readonly #prune: SqliteTransaction<[string, number], void>;
  readonly #claim: SqliteTransaction<[ClaimOptions], Lease[]>;
  readonly #renew: SqliteTransaction<[Lease, number, number], Lease>;
  readonly #putDeployment: SqliteTransaction<[DeploymentInput], Deployment>;
  readonly #takeMessage: SqliteTransaction<[string, string | null, number, string], BufferedMessage | undefined>;
  /** Runs reads in one (deferred) transaction, so a checkpoint and its writes come from one snapshot. */
  readonly #read: SqliteTransaction<[() => unknown], unknown>;
  #closed = false;

  /** @internal Use {@link createSqliteRepository}. */
  constructor(db: SqliteDatabase, path: string) {
    this.#db = db;
    this.path = path;
    this.#sql = Object.fromEntries(
      Object.entries(SQL).map(([name, source]) => [name, db.prepare(source)]),
    ) as Statements;
    this.#put = db.transaction((checkpoint: PutCheckpoint) => this.#putInTransaction(checkpoint));
    this.#rewrite = db.transaction((checkpoint: RewriteCheckpoint) => this.#rewriteInTransaction(checkpoint));
    this.#putWrites = db.transaction(
      (instanceId: string, seq: number, writes: PendingWrite[], fence: Fence | undefined) =>
        this.#putWritesInTransaction(instanceId, seq, writes, fence),
    );
    this.#delete = db.transaction((instanceId: string) => {
      this.#sql.deleteWrites.run(instanceId);
      this.#sql.deleteCheckpoints.run(instanceId);
      this.#sql.deleteSubscriptions.run(instanceId);
      this.#sql.deleteLease.run(instanceId);
      this.#sql.deleteInstance.run(instanceId);
    });
    this.#copy = db.transaction((sourceId: string, targetId: string) => this.#copyInTransaction(sourceId, targetId));
    this.#prune = db.transaction((instanceId: string, keepLast: number) => {
      const cutoff = this.#sql.selectPruneCutoff.get(instanceId, keepLast - 1) as { seq: number } | undefined;
      if (cutoff === undefined) return;
      this.#sql.pruneWrites.run(instanceId, cutoff.seq);
      this.#sql.pruneCheckpoints.run(instanceId, cutoff.seq);
    });
    this.#claim = db.transaction((options: ClaimOptions) => this.#claimInTransaction(options));
    this.#renew = db.transaction((lease: Lease, ttlMs: number, now: number) => {
      checkRenew(lease, this.#heldLease(lease.instanceId));
      const renewed: Lease = {
        instanceId: lease.instanceId,
        owner: lease.owner,
        token: lease.token,
        expiresAt: now + ttlMs,
      };
      this.#sql.renewLease.run(renewed.expiresAt, lease.instanceId, lease.owner, lease.token);
      return renewed;
    });
    this.#putDeployment = db.transaction((input: DeploymentInput) => this.#putDeploymentInTransaction(input));
    this.#read = db.transaction((work: () => unknown) => work());
    this.#takeMessage = db.transaction((name: string, key: string | null, now: number, taker: string) => {
      const row = (this.#sql.selectHeldMessage.get({ name, key, taker }) ??
        this.#sql.selectFreeMessage.get({ name, key, now })) as MessageRow | undefined;
      if (row === undefined) return undefined;
      this.#sql.holdMessage.run(taker, row.id);
      return toMessage(row);
    });
  }

  async put(checkpoint: PutCheckpoint): Promise<void> {
    const { instanceId, meta } = checkpoint;
    storable('instanceId', instanceId);
    storable('definitionDigest', checkpoint.definitionDigest);
    storable('digest', checkpoint.digest);
    for (const field of ['status', 'processId', 'definitionId', 'businessKey', 'parentId', 'callNodeId'] as const) {
      storable(`meta.${field}`, meta[field]);
    }
    for (const [i, { name, key }] of meta.subscriptions.entries()) {
      storable(`meta.subscriptions[${i}].name`, name);
      storable(`meta.subscriptions[${i}].key`, key);
    }
    this.#call('put', () => this.#put.immediate(checkpoint));
  }

  async rewrite(checkpoint: RewriteCheckpoint): Promise<void> {
    const { instanceId, seq } = checkpoint;
    storable('digest', checkpoint.digest);
    // Nothing stored has such an id or digest, so the checkpoint to rewrite cannot be there.
    if (!isStorable(instanceId) || !isStorable(checkpoint.expectedDigest)) {
      return this.#call('rewrite', () => {
        throw new ConflictError(instanceId, seq, `there is no checkpoint at seq ${seq} to rewrite`);
      });
    }
    this.#call('rewrite', () => this.#rewrite.immediate(checkpoint));
  }

  async putWrites(instanceId: string, seq: number, writes: PendingWrite[], fence?: Fence): Promise<void> {
    storable('instanceId', instanceId);
    for (const [i, write] of writes.entries()) storable(`writes[${i}].taskId`, write.taskId);
    this.#call('putWrites', () => this.#putWrites.immediate(instanceId, seq, writes, fence));
  }

  async get(instanceId: string, seq?: number): Promise<StoredCheckpoint | undefined> {
    if (!isStorable(instanceId)) return this.#call('get', () => undefined);
    return this.#call('get', () =>
      this.#read(() => {
        const row = (
          seq === undefined ? this.#sql.selectLatest.get(instanceId) : this.#sql.selectAtSeq.get(instanceId, seq)
        ) as CheckpointRow | undefined;
        if (row === undefined) return undefined;
        return toStored(row, this.#sql.selectWritesOf.all(instanceId, row.seq) as WriteRow[]);
      }),
    ) as StoredCheckpoint | undefined;
  }

  async list(instanceId: string, options: ListOptions = {}): Promise<StoredCheckpoint[]> {
    const before = options.before ?? Number.MAX_SAFE_INTEGER;
    const limit = options.limit ?? -1;
    if (!isStorable(instanceId)) return this.#call('list', () => []);
    return this.#call('list', () =>
      this.#read(() => {
        const rows = this.#sql.selectList.all(instanceId, before, limit) as CheckpointRow[];
        if (rows.length === 0) return [];
        const writes = this.#sql.selectWritesBetween.all(
          instanceId,
          rows[0]!.seq,
          rows[rows.length - 1]!.seq,
        ) as WriteRow[];
        const bySeq = new Map<number, WriteRow[]>();
        for (const write of writes) {
          const group = bySeq.get(write.seq);
          if (group === undefined) bySeq.set(write.seq, [write]);
          else group.push(write);
        }
        return rows.map((row) => toStored(row, bySeq.get(row.seq) ?? []));
      }),
    ) as StoredCheckpoint[];
  }

  async delete(instanceId: string): Promise<void> {
    if (!isStorable(instanceId)) return this.#call('delete', () => undefined);
    this.#call('delete', () => this.#delete.immediate(instanceId));
  }

  async copy(sourceId: string, targetId: string): Promise<void> {
    storable('sourceId', sourceId);
    storable('targetId', targetId);
    this.#call('copy', () => this.#copy.immediate(sourceId, targetId));
  }

  async prune(instanceId: string, options: PruneOptions): Promise<void> {
    checkKeepLast(options.keepLast);
    if (!isStorable(instanceId)) return this.#call('prune', () => undefined);
    this.#call('prune', () => this.#prune.immediate(instanceId, options.keepLast));
  }

  async claim(options: ClaimOptions): Promise<Lease[]> {
    checkLeaseArguments(options);
    storable('owner', options.owner);
    return this.#call('claim', () => this.#claim.immediate(options));
  }

  async renew(lease: Lease, ttlMs: number, now: number): Promise<Lease> {
    checkLeaseArguments({ ttlMs, now });
    // Nothing stored has such an id or owner, so the lease cannot be held.
    if (!isStorable(lease.instanceId) || !isStorable(lease.owner)) {
      return this.#call('renew', () => {
        throw new LeaseLostError(lease.instanceId, lease.owner, lease.token, 'no lease is held');
      });
    }
    return this.#call('renew', () => this.#renew.immediate(lease, ttlMs, now));
  }

  async release(lease: Lease): Promise<void> {
    if (!isStorable(lease.instanceId) || !isStorable(lease.owner)) return this.#call('release', () => undefined);
    this.#call('release', () => {
      this.#sql.releaseLease.run(lease.instanceId, lease.owner, lease.token);
    });
  }

  async dueTimers(now: number, limit: number): Promise<DueTimer[]> {
    return this.#call('dueTimers', () => {
      const rows = this.#sql.selectDueTimers.all(now, Math.max(0, limit)) as { instance_id: string; due_at: number }[];
      return rows.map((row) => ({ instanceId: row.instance_id, dueAt: row.due_at }));
    });
  }

  async subscriptions(name: string, key: string | null): Promise<string[]> {
    if (!isStorable(name) || !isStorable(key)) return this.#call('subscriptions', () => []);
    return this.#call('subscriptions', () =>
      (this.#sql.selectSubscribers.all(name, key) as { instance_id: string }[]).map((row) => row.instance_id),
    );
  }

  async instances(query: InstanceQuery = {}): Promise<InstanceSummary[]> {
    if (query.after !== undefined) storable('after', query.after);
    // Nothing stored can equal a key SQLite would mangle; binding it could match a different, real row.
    if (![query.parentId, query.status, query.definition].every(isStorable)) return this.#call('instances', () => []);
    const shape: InstanceFilterShape = {
      roots: query.roots === true,
      children: query.children === true,
      parentId: query.parentId !== undefined,
      status: query.status !== undefined,
      definition: query.definition !== undefined,
      after: query.after !== undefined,
      limit: query.limit !== undefined,
    };
    // Only the present filters: a named parameter the statement uses but the object lacks is an error.
    const params: Record<string, unknown> = {};
    if (shape.parentId) params.parentId = query.parentId;
    if (shape.status) params.status = query.status;
    if (shape.definition) params.definition = query.definition;
    if (shape.after) params.after = query.after;
    if (shape.limit) params.limit = query.limit;
    return this.#call('instances', () =>
      this.#read(() => {
        const rows = this.#instanceStatement(shape).all(params) as InstanceRow[];
        if (rows.length === 0) return [];
        // One read for the page's subscriptions, not one per instance.
        const subscriptions = new Map<string, MessageSubscription[]>(rows.map((row) => [row.instance_id, []]));
        const found = this.#sql.selectSubscriptionsOf.all(
          JSON.stringify(rows.map((row) => row.instance_id)),
        ) as SubscriptionRow[];
        for (const { instance_id, name, key } of found) subscriptions.get(instance_id)?.push({ name, key });
        return rows.map((row) => toSummary(row, subscriptions.get(row.instance_id)!));
      }),
    ) as InstanceSummary[];
  }

  async putMessage(message: BufferedMessage): Promise<boolean> {
    checkMessage(message);
    storable('message.id', message.id);
    storable('message.name', message.name);
    storable('message.correlationKey', message.correlationKey);
    return this.#call('putMessage', () => {
      const { changes } = this.#sql.insertMessage.run({
        id: message.id,
        name: message.name,
        correlation_key: message.correlationKey,
        variables: message.variables,
        published_at: message.publishedAt,
        expires_at: message.expiresAt,
      });
      return changes > 0;
    });
  }

  async takeMessage(
    name: string,
    correlationKey: string | null,
    now: number,
    taker: string,
  ): Promise<BufferedMessage | undefined> {
    checkMessageClock(now);
    storable('taker', taker);
    // Nothing stored has such a name or key, so there is nothing to take.
    if (!isStorable(name) || !isStorable(correlationKey)) return this.#call('takeMessage', () => undefined);
    // IMMEDIATE: the write lock is taken before the select, so two connections never pick the same message.
    return this.#call('takeMessage', () => this.#takeMessage.immediate(name, correlationKey, now, taker));
  }

  async deleteMessage(id: string): Promise<boolean> {
    if (!isStorable(id)) return this.#call('deleteMessage', () => false);
    return this.#call('deleteMessage', () => this.#sql.deleteMessage.run(id).changes > 0);
  }

  async expireMessages(now: number): Promise<number> {
    checkMessageClock(now);
    return this.#call('expireMessages', () => this.#sql.expireMessages.run(now).changes);
  }

  async putDeployment(deployment: DeploymentInput): Promise<Deployment> {
    storable('definitionId', deployment.definitionId);
    storable('digest', deployment.digest);
    storable('xml', deployment.xml);
    return this.#call('putDeployment', () => this.#putDeployment.immediate(deployment));
  }

  async getDeployment(digest: string): Promise<Deployment | undefined> {
    if (!isStorable(digest)) return this.#call('getDeployment', () => undefined);
    return this.#call('getDeployment', () => {
      const row = this.#sql.selectDeployment.get(digest) as DeploymentRow | undefined;
      return row === undefined ? undefined : toDeployment(row);
    });
  }

  async deployments(definitionId?: string): Promise<Deployment[]> {
    if (!isStorable(definitionId)) return this.#call('deployments', () => []);
    return this.#call('deployments', () => {
      const rows = (
        definitionId === undefined ? this.#sql.selectDeployments.all() : this.#sql.selectDeploymentsOf.all(definitionId)
      ) as DeploymentRow[];
      return rows.map(toDeployment);
    });
  }

  /** Close the connection (checkpointing the WAL into the file). Closing again is a no-op. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#call('close', () => this.#db.close(), true);
  }

  #putInTransaction(checkpoint: PutCheckpoint): void {
    const { instanceId, seq, parentSeq, meta } = checkpoint;
    checkFence(instanceId, checkpoint.fence, this.#heldLease(instanceId));
    const stored = this.#sql.selectDocument.get(instanceId, seq) as { document: Uint8Array } | undefined;
    const latest =
      (this.#sql.selectLatestSeq.get(instanceId) as { latest_seq: number } | undefined)?.latest_seq ?? null;
    if (decidePut(checkpoint, stored?.document, latest) === 'replay') return;
    // The instance row first: checkpoints reference it. An upsert, never REPLACE, which would cascade-delete.
    this.#sql.upsertInstance.run({
      instance_id: instanceId,
      latest_seq: seq,
      definition_digest: checkpoint.definitionDigest,
      status: meta.status,
      process_id: meta.processId,
      definition_id: meta.definitionId,
      business_key: meta.businessKey,
      parent_id: meta.parentId,
      call_node_id: meta.callNodeId,
      due_at: meta.dueAt,
    });
    this.#sql.deleteSubscriptions.run(instanceId);
    for (const [ord, { name, key }] of meta.subscriptions.entries()) {
      this.#sql.insertSubscription.run(instanceId, ord, name, key);
    }
    this.#sql.insertCheckpoint.run({
      instance_id: instanceId,
      seq,
      parent_seq: parentSeq,
      schema: checkpoint.schema,
      definition_digest: checkpoint.definitionDigest,
      digest: checkpoint.digest,
      document: checkpoint.bytes,
    });
  }

  #rewriteInTransaction(checkpoint: RewriteCheckpoint): void {
    const { instanceId, seq } = checkpoint;
    checkFence(instanceId, checkpoint.fence, this.#heldLease(instanceId));
    const stored = this.#sql.selectDigestAndDocument.get(instanceId, seq) as
      | { digest: string; document: Uint8Array }
      | undefined;
    const current = stored && { digest: stored.digest, bytes: stored.document };
    if (decideRewrite(checkpoint, current) === 'replay') return;
    this.#sql.rewriteCheckpoint.run({
      instance_id: instanceId,
      seq,
      schema: checkpoint.schema,
      digest: checkpoint.digest,
      document: checkpoint.bytes,
    });
  }

  #putWritesInTransaction(instanceId: string, seq: number, writes: PendingWrite[], fence: Fence | undefined): void {
    checkFence(instanceId, fence, this.#heldLease(instanceId));
    if (this.#sql.checkpointExists.get(instanceId, seq) === undefined) {
      throw new ConflictError(instanceId, seq, `there is no checkpoint at seq ${seq} to file writes against`);
    }
    let ord = (this.#sql.selectMaxWriteOrd.get(instanceId, seq) as { ord: number | null }).ord ?? -1;
    for (const write of writes) {
      // Only an inserted entry takes an ord; an ignored repeat leaves no gap and moves nothing.
      const { changes } = this.#sql.insertWrite.run(instanceId, seq, write.taskId, write.index, ord + 1, write.value);
      if (changes > 0) ord++;
    }
  }

  #heldLease(instanceId: string): HeldLease | undefined {
    const row = this.#sql.selectLease.get(instanceId) as LeaseRow | undefined;
    return row === undefined ? undefined : { owner: row.owner, token: row.token, expiresAt: row.expires_at };
  }

  #copyInTransaction(sourceId: string, targetId: string): void {
    const source = this.#sql.selectLatestSeq.get(sourceId) as { latest_seq: number } | undefined;
    const target = this.#sql.selectLatestSeq.get(targetId) as { latest_seq: number } | undefined;
    decideCopy(sourceId, targetId, source !== undefined, target?.latest_seq ?? null);
    const ids = { source: sourceId, target: targetId };
    // The instance row first: the others reference it. The lease is not copied.
    this.#sql.copyInstance.run(ids);
    this.#sql.copyCheckpoints.run(ids);
    this.#sql.copyWrites.run(ids);
    this.#sql.copySubscriptions.run(ids);
  }

  #claimInTransaction(options: ClaimOptions): Lease[] {
    const { owner, ttlMs, now, limit } = options;
    let rows: { instance_id: string }[];
    if (options.instanceIds === undefined) {
      rows = this.#sql.selectClaimable.all({ now, limit }) as { instance_id: string }[];
    } else {
      // Nothing stored has an id SQLite cannot keep, so such ids cannot be claimed.
      const ids = JSON.stringify(options.instanceIds.filter(isStorable));
      rows = this.#sql.selectClaimableAmong.all({ ids, now, limit }) as { instance_id: string }[];
    }
    return rows.map(({ instance_id }) => {
      const { value: token } = this.#sql.nextLeaseToken.get() as { value: number };
      const lease: Lease = { instanceId: instance_id, owner, token, expiresAt: now + ttlMs };
      this.#sql.upsertLease.run({ instance_id, owner, token, expires_at: lease.expiresAt });
      return lease;
    });
  }

  #putDeploymentInTransaction(input: DeploymentInput): Deployment {
    const existing = this.#sql.selectDeployment.get(input.digest) as DeploymentRow | undefined;
    if (existing !== undefined) return toDeployment(existing);
    const { version } = this.#sql.selectNextVersion.get(input.definitionId) as { version: number };
    this.#sql.insertDeployment.run({
      definition_id: input.definitionId,
      digest: input.digest,
      version,
      xml: input.xml,
      deployed_at: input.deployedAt,
    });
    return {
      definitionId: input.definitionId,
      digest: input.digest,
      xml: input.xml,
      deployedAt: input.deployedAt,
      version,
    };
  }

  #instanceStatement(shape: InstanceFilterShape): SqliteStatement {
    const key = Object.values(shape)
      .map((present) => (present ? '1' : '0'))
      .join('');
    let statement = this.#instanceQueries.get(key);
    if (statement === undefined) {
      statement = this.#db.prepare(selectInstancesSql(shape));
      this.#instanceQueries.set(key, statement);
    }
    return statement;
  }

  /** Run driver work, refusing it once closed and classifying driver failures as store errors. */
  #call<T>(operation: string, work: () => T, closing = false): T {
    if (this.#closed && !closing) {
      throw new CheckpointError(
        CheckpointErrorCode.Store,
        `${operation} on the SQLite repository ${this.path} after it was closed; open a new one`,
      );
    }
    try {
      return work();
    } catch (error) {
      if (CheckpointError.is(error)) throw error;
      const code = (error as { code?: unknown }).code;
      // Another connection held the lock past the busy timeout: the same call may succeed later.
      const retryable = typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(code);
      throw new CheckpointError(
        CheckpointErrorCode.Store,
        `${operation} on the SQLite database ${this.path} failed: ${(error as Error)?.message ?? String(error)}`,
        { cause: error, retryable },
      );
    }
  }
}

/** Matches a UTF-16 surrogate that is not part of a pair: the `u` flag reads a valid pair as one code point. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Whether SQLite keeps this text as given; lookups by text it cannot keep find nothing, as nothing was stored. */
function isStorable(value: string | null | undefined): boolean {
  return value === null || value === undefined || !LONE_SURROGATE.test(value);
}

/**
 * Refuse text that SQLite cannot keep: it stores UTF-8, and a lone surrogate would come back as U+FFFD,
 * so two distinct ids could become one. Refused before the write rather than mangled silently.
 */
function storable(path: string, value: string | null): void {
  if (!isStorable(value)) {
    throw new UnencodableValueError(path, 'it contains a lone UTF-16 surrogate, which SQLite text cannot hold');
  }
}

/** A plain `Uint8Array` copy of a BLOB the driver returned as a Buffer. */
function toBytes(blob: Uint8Array): Uint8Array {
  return new Uint8Array(blob);
}

function toStored(row: CheckpointRow, writes: WriteRow[]): StoredCheckpoint {
  return {
    instanceId: row.instance_id,
    seq: row.seq,
    parentSeq: row.parent_seq,
    schema: row.schema,
    definitionDigest: row.definition_digest,
    digest: row.digest,
    bytes: toBytes(row.document),
    writes: writes.map((write) => ({ taskId: write.task_id, index: write.idx, value: toBytes(write.value) })),
  };
}

function toSummary(row: InstanceRow, subscriptions: MessageSubscription[]): InstanceSummary {
  return {
    instanceId: row.instance_id,
    latestSeq: row.latest_seq,
    definitionDigest: row.definition_digest,
    status: row.status as InstanceStatus,
    processId: row.process_id,
    definitionId: row.definition_id,
    businessKey: row.business_key,
    parentId: row.parent_id,
    callNodeId: row.call_node_id,
    dueAt: row.due_at,
    subscriptions,
  };
}

function toMessage(row: MessageRow): BufferedMessage {
  return {
    id: row.id,
    name: row.name,
    correlationKey: row.correlation_key,
    variables: toBytes(row.variables),
    publishedAt: row.published_at,
    expiresAt: row.expires_at,
  };
}

function toDeployment(row: DeploymentRow): Deployment {
  return {
    definitionId: row.definition_id,
    digest: row.digest,
    xml: row.xml,
    deployedAt: row.deployed_at,
    version: row.version,
  };
}
