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
  type InstanceSummary,
  type Lease,
  type ListOptions,
  type PendingWrite,
  type PruneOptions,
  type PutCheckpoint,
  type Repository,
  type RewriteCheckpoint,
  type StoredCheckpoint,
  UnencodableValueError,
} from '@thresher/checkpoint';
import { type PGliteLike, type PgClientLike, type PgPoolLike, pglitePool } from './driver.js';
import { DEFAULT_SCHEMA, migrate, quoteSchema } from './migrations.js';
import {
  type CheckpointRow,
  type ClaimedRow,
  type DeploymentRow,
  type InstanceRow,
  type Int8,
  insertWritesSql,
  type LockedInstanceRow,
  type MessageRow,
  type Statements,
  selectInstancesSql,
  statements,
  toDeployment,
  toMessage,
  toStored,
  toSummary,
  type WriteRow,
} from './sql.js';

/** Options of {@link createPostgresRepository}: exactly one of `connectionString`, `pool` and `pglite`. */
export interface PostgresRepositoryOptions {
  /** A `postgres://` URL; the repository opens (and on `close` ends) its own `pg` pool. */
  connectionString?: string;
  /** A pool the caller owns (a `pg.Pool`, or anything of its shape); `close` leaves it open. */
  pool?: PgPoolLike;
  /** An in-process PGlite instance the caller owns; `close` leaves it open. */
  pglite?: PGliteLike;
  /** The PostgreSQL schema holding the tables, created if missing. Default `thresher`. */
  schema?: string;
}

/** Most journal entries bound in one INSERT: three parameters each, well below PostgreSQL's 65,535. */
const WRITES_PER_STATEMENT = 1000;

/**
 * Open a PostgreSQL database (or a PGlite instance) as a {@link Repository}, creating or upgrading its tables.
 *
 * @remarks
 * The tables of `schema` are migrated on open, inside a transaction holding an advisory lock, so processes
 * opening at once migrate once. A schema written by a newer build is refused with a `CheckpointError` whose
 * code is `THRESHER_FUTURE_SCHEMA`. Documents and journal values are `BYTEA`, returned byte for byte.
 *
 * @example
 * ```ts
 * const repository = await createPostgresRepository({ connectionString: 'postgres://localhost/app' });
 * try {
 *   await repository.put(checkpoint);
 * } finally {
 *   await repository.close();
 * }
 * ```
 */
export async function createPostgresRepository(options: PostgresRepositoryOptions): Promise<PostgresRepository> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  quoteSchema(schema);
  const given = (['connectionString', 'pool', 'pglite'] as const).filter((key) => options[key] !== undefined);
  if (given.length !== 1) {
    throw new CheckpointError(
      CheckpointErrorCode.Store,
      `the PostgreSQL repository needs exactly one of connectionString, pool or pglite${given.length > 1 ? `, not ${given.join(' and ')}` : ''}`,
    );
  }
  let pool: PgPoolLike;
  let owned = false;
  let where: string;
  if (options.pool !== undefined) {
    pool = options.pool;
    where = 'the given pool';
  } else if (options.pglite !== undefined) {
    pool = pglitePool(options.pglite);
    where = 'PGlite';
  } else {
    where = redact(options.connectionString!);
    try {
      const { default: pg } = await import('pg');
      const own = new pg.Pool({ connectionString: options.connectionString });
      // An idle connection the server dropped emits 'error' on the pool; unheard, it would end the process.
      // The next query on the pool reports the problem instead.
      own.on('error', () => {});
      pool = own;
      owned = true;
    } catch (cause) {
      throw new CheckpointError(CheckpointErrorCode.Store, `cannot open the PostgreSQL database ${where}`, { cause });
    }
  }
  try {
    await migrate(pool, schema);
  } catch (error) {
    if (owned) await pool.end().catch(() => {});
    throw CheckpointError.is(error)
      ? error
      : new CheckpointError(
          CheckpointErrorCode.Store,
          `cannot open the PostgreSQL schema "${schema}" in ${where}: ${describe(error)}`,
          { cause: error, retryable: isTransient(error) },
        );
  }
  return new PostgresRepository(pool, { schema, where, owned });
}

/**
 * The {@link Repository} on a PostgreSQL pool. Create it with {@link createPostgresRepository}, which
 * migrates the schema; the constructor expects that done.
 *
 * @remarks
 * Each write is one transaction at READ COMMITTED that first locks the instance's row (`SELECT … FOR
 * UPDATE`), so writers of one instance — in any process — queue there, and `put` decides with
 * {@link decidePut} on what the lock holder sees. The creation of an instance, which has no row to lock yet,
 * is serialised by the primary key: the losing insert waits for the winner and decides again under its lock.
 * Reads of a checkpoint and its writes run in one REPEATABLE READ snapshot.
 */
export class PostgresRepository implements Repository {
  /** The schema holding the tables. */
  readonly schema: string;
  readonly #pool: PgPoolLike;
  readonly #owned: boolean;
  readonly #where: string;
  readonly #quoted: string;
  readonly #sql: Statements;
  #closed = false;

  /** @internal Use {@link createPostgresRepository}. */
  constructor(pool: PgPoolLike, options: { schema: string; where: string; owned: boolean }) {
    this.#pool = pool;
    this.schema = options.schema;
    this.#where = options.where;
    this.#owned = options.owned;
    this.#quoted = quoteSchema(options.schema);
    this.#sql = statements(this.#quoted);
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
    await this.#transaction('put', (client) => this.#putIn(client, checkpoint));
  }

  async rewrite(checkpoint: RewriteCheckpoint): Promise<void> {
    const { instanceId, seq, fence } = checkpoint;
    storable('digest', checkpoint.digest);
    this.#assertOpen('rewrite');
    // Nothing stored has such an id or digest, so there is no lease and no checkpoint to rewrite.
    if (!isStorable(instanceId) || !isStorable(checkpoint.expectedDigest)) {
      if (!isStorable(instanceId)) checkFence(instanceId, fence, undefined);
      throw new ConflictError(instanceId, seq, `there is no checkpoint at seq ${seq} to rewrite`);
    }
    await this.#transaction('rewrite', async (client) => {
      await this.#lockAndFence(client, instanceId, fence);
      const { rows } = await client.query<{ digest: string; document: Uint8Array }>(this.#sql.selectDigestAndDocument, [
        instanceId,
        seq,
      ]);
      const stored = rows[0] && { digest: rows[0].digest, bytes: rows[0].document };
      if (decideRewrite(checkpoint, stored) === 'replay') return;
      await client.query(this.#sql.rewriteCheckpoint, [
        instanceId,
        seq,
        checkpoint.schema,
        checkpoint.digest,
        checkpoint.bytes,
      ]);
    });
  }

  async putWrites(instanceId: string, seq: number, writes: PendingWrite[], fence?: Fence): Promise<void> {
    storable('instanceId', instanceId);
    for (const [i, entry] of writes.entries()) storable(`writes[${i}].taskId`, entry.taskId);
    await this.#transaction('putWrites', async (client) => {
      // The instance's row lock orders this with puts, rewrites, deletes and other putWrites of the instance.
      await this.#lockAndFence(client, instanceId, fence);
      const exists = await client.query(this.#sql.checkpointExists, [instanceId, seq]);
      if (exists.rows.length === 0) {
        throw new ConflictError(instanceId, seq, `there is no checkpoint at seq ${seq} to file writes against`);
      }
      for (let start = 0; start < writes.length; start += WRITES_PER_STATEMENT) {
        const batch = writes.slice(start, start + WRITES_PER_STATEMENT);
        const { rows } = await client.query<{ ord: Int8 | null }>(this.#sql.selectMaxWriteOrd, [instanceId, seq]);
        const ord = rows[0]?.ord == null ? -1 : Number(rows[0].ord);
        const values: unknown[] = [instanceId, seq, ord];
        for (const entry of batch) values.push(entry.taskId, entry.index, entry.value);
        await client.query(insertWritesSql(this.#quoted, batch.length), values);
      }
    });
  }

  async get(instanceId: string, seq?: number): Promise<StoredCheckpoint | undefined> {
    this.#assertOpen('get');
    if (!isStorable(instanceId)) return undefined;
    return this.#snapshot('get', async (client) => {
      const { rows } =
        seq === undefined
          ? await client.query<CheckpointRow>(this.#sql.selectLatest, [instanceId])
          : await client.query<CheckpointRow>(this.#sql.selectAtSeq, [instanceId, seq]);
      const row = rows[0];
      if (row === undefined) return undefined;
      const writes = await client.query<WriteRow>(this.#sql.selectWritesOf, [instanceId, row.seq]);
      return toStored(row, writes.rows);
    });
  }

  async list(instanceId: string, options: ListOptions = {}): Promise<StoredCheckpoint[]> {
    this.#assertOpen('list');
    if (!isStorable(instanceId)) return [];
    return this.#snapshot('list', async (client) => {
      const { rows } = await client.query<CheckpointRow>(this.#sql.selectList, [
        instanceId,
        options.before ?? null,
        options.limit ?? null,
      ]);
      if (rows.length === 0) return [];
      const writes = await client.query<WriteRow>(this.#sql.selectWritesBetween, [
        instanceId,
        rows[0]!.seq,
        rows[rows.length - 1]!.seq,
      ]);
      const bySeq = new Map<number, WriteRow[]>();
      for (const entry of writes.rows) {
        const key = Number(entry.seq);
        const group = bySeq.get(key);
        if (group === undefined) bySeq.set(key, [entry]);
        else group.push(entry);
      }
      return rows.map((row) => toStored(row, bySeq.get(Number(row.seq)) ?? []));
    });
  }

  async delete(instanceId: string): Promise<void> {
    this.#assertOpen('delete');
    if (!isStorable(instanceId)) return;
    await this.#transaction('delete', async (client) => {
      await client.query(this.#sql.lockInstance, [instanceId]);
      await client.query(this.#sql.deleteWrites, [instanceId]);
      await client.query(this.#sql.deleteCheckpoints, [instanceId]);
      await client.query(this.#sql.deleteSubscriptions, [instanceId]);
      // The lease lives on the instance row and goes with it; its token is never handed out again.
      await client.query(this.#sql.deleteInstance, [instanceId]);
    });
  }

  async copy(sourceId: string, targetId: string): Promise<void> {
    storable('targetId', targetId);
    this.#assertOpen('copy');
    if (!isStorable(sourceId)) return decideCopy(sourceId, targetId, false, null);
    await this.#transaction('copy', async (client) => {
      const source = await client.query(this.#sql.lockSource, [sourceId]);
      const target = await client.query<{ latest_seq: Int8 }>(this.#sql.selectLatestSeq, [targetId]);
      const targetLatest = target.rows[0] === undefined ? null : Number(target.rows[0].latest_seq);
      decideCopy(sourceId, targetId, source.rows.length > 0, targetLatest);
      const created = await client.query(this.#sql.copyInstance, [sourceId, targetId]);
      if (created.rowCount === 0) {
        // Created by a concurrent put since we looked: the same refusal, with the seq it has now.
        const now = await client.query<{ latest_seq: Int8 }>(this.#sql.selectLatestSeq, [targetId]);
        decideCopy(sourceId, targetId, true, Number(now.rows[0]?.latest_seq ?? 0));
      }
      for (const statement of [this.#sql.copyCheckpoints, this.#sql.copyWrites, this.#sql.copySubscriptions]) {
        await client.query(statement, [sourceId, targetId]);
      }
    });
  }

  async prune(instanceId: string, options: PruneOptions): Promise<void> {
    checkKeepLast(options.keepLast);
    this.#assertOpen('prune');
    if (!isStorable(instanceId)) return;
    await this.#transaction('prune', async (client) => {
      const locked = await client.query(this.#sql.lockInstance, [instanceId]);
      if (locked.rows.length === 0) return;
      const cutoff = await client.query<{ seq: Int8 }>(this.#sql.selectPruneCutoff, [instanceId, options.keepLast - 1]);
      if (cutoff.rows[0] === undefined) return;
      const oldestKept = cutoff.rows[0].seq;
      await client.query(this.#sql.pruneWrites, [instanceId, oldestKept]);
      await client.query(this.#sql.pruneCheckpoints, [instanceId, oldestKept]);
    });
  }

  async instances(query: InstanceQuery = {}): Promise<InstanceSummary[]> {
    if (query.after !== undefined) storable('after', query.after);
    this.#assertOpen('instances');
    // Nothing stored can equal a key PostgreSQL would refuse or mangle; binding it could fail or match another row.
    if (![query.parentId, query.status, query.definition].every(isStorable)) return [];
    const { text, values } = selectInstancesSql(this.#quoted, {
      roots: query.roots === true,
      children: query.children === true,
      parentId: query.parentId,
      status: query.status,
      definition: query.definition,
      after: query.after,
      limit: query.limit,
    });
    const { rows } = await this.#call('instances', () => this.#pool.query<InstanceRow>(text, values));
    return rows.map(toSummary);
  }

  async claim(options: ClaimOptions): Promise<Lease[]> {
    const { owner, ttlMs, now, limit } = options;
    checkLeaseArguments({ ttlMs, now, limit });
    storable('owner', owner);
    this.#assertOpen('claim');
    // Ids PostgreSQL cannot hold are not stored, so they are skipped like any id the store does not have.
    const among = options.instanceIds?.filter((id) => isStorable(id));
    if (limit === 0 || among?.length === 0) return [];
    const expiresAt = now + ttlMs;
    const { rows } = await this.#call('claim', () =>
      this.#pool.query<ClaimedRow>(this.#sql.claim, [owner, now, limit, among ?? null, expiresAt]),
    );
    return rows.map((row) => ({
      instanceId: row.instance_id,
      owner,
      token: Number(row.lease_token),
      expiresAt: Number(row.lease_expires_at),
    }));
  }

  async renew(lease: Lease, ttlMs: number, now: number): Promise<Lease> {
    checkLeaseArguments({ ttlMs, now });
    this.#assertOpen('renew');
    if (!isStorable(lease.instanceId) || !isStorable(lease.owner)) checkRenew(lease, undefined);
    return this.#transaction('renew', async (client) => {
      const { rows } = await client.query<LockedInstanceRow>(this.#sql.lockLease, [lease.instanceId]);
      checkRenew(lease, heldLease(rows[0]));
      const expiresAt = now + ttlMs;
      await client.query(this.#sql.renewLease, [lease.instanceId, expiresAt]);
      return { instanceId: lease.instanceId, owner: lease.owner, token: lease.token, expiresAt };
    });
  }

  async release(lease: Lease): Promise<void> {
    this.#assertOpen('release');
    if (!isStorable(lease.instanceId) || !isStorable(lease.owner)) return;
    await this.#call('release', () =>
      this.#pool.query(this.#sql.releaseLease, [lease.instanceId, lease.owner, lease.token]),
    );
  }

  async dueTimers(now: number, limit: number): Promise<DueTimer[]> {
    this.#assertOpen('dueTimers');
    // Nothing is due at a time that is not one (SQL would order NaN above every timer and return them all).
    if (Number.isNaN(now)) return [];
    const { rows } = await this.#call('dueTimers', () =>
      this.#pool.query<{ instance_id: string; due_at: number }>(this.#sql.selectDueTimers, [now, pageSize(limit)]),
    );
    return rows.map((row) => ({ instanceId: row.instance_id, dueAt: Number(row.due_at) }));
  }

  async subscriptions(name: string, key: string | null): Promise<string[]> {
    this.#assertOpen('subscriptions');
    if (!isStorable(name) || !isStorable(key)) return [];
    const { rows } = await this.#call('subscriptions', () =>
      key === null
        ? this.#pool.query<{ instance_id: string }>(this.#sql.selectSubscribersWithoutKey, [name])
        : this.#pool.query<{ instance_id: string }>(this.#sql.selectSubscribers, [name, key]),
    );
    return rows.map((row) => row.instance_id);
  }

  async putMessage(message: BufferedMessage): Promise<boolean> {
    checkMessage(message);
    storable('message.id', message.id);
    storable('message.name', message.name);
    storable('message.correlationKey', message.correlationKey);
    const { rowCount } = await this.#call('putMessage', () =>
      this.#pool.query(this.#sql.insertMessage, [
        message.id,
        message.name,
        message.correlationKey,
        message.variables,
        message.publishedAt,
        message.expiresAt,
      ]),
    );
    return (rowCount ?? 0) > 0;
  }

  async takeMessage(
    name: string,
    correlationKey: string | null,
    now: number,
    taker: string,
  ): Promise<BufferedMessage | undefined> {
    checkMessageClock(now);
    storable('taker', taker);
    this.#assertOpen('takeMessage');
    // Nothing stored has such a name or key, so there is nothing to take.
    if (!isStorable(name) || !isStorable(correlationKey)) return undefined;
    const statement = correlationKey === null ? this.#sql.takeMessageWithoutKey : this.#sql.takeMessage;
    const { rows } = await this.#call('takeMessage', () =>
      this.#pool.query<MessageRow>(statement, [name, correlationKey, now, taker]),
    );
    return rows[0] === undefined ? undefined : toMessage(rows[0]);
  }

  async deleteMessage(id: string): Promise<boolean> {
    this.#assertOpen('deleteMessage');
    if (!isStorable(id)) return false;
    const { rowCount } = await this.#call('deleteMessage', () => this.#pool.query(this.#sql.deleteMessage, [id]));
    return (rowCount ?? 0) > 0;
  }

  async expireMessages(now: number): Promise<number> {
    checkMessageClock(now);
    const { rowCount } = await this.#call('expireMessages', () => this.#pool.query(this.#sql.expireMessages, [now]));
    return rowCount ?? 0;
  }

  async putDeployment(deployment: DeploymentInput): Promise<Deployment> {
    storable('definitionId', deployment.definitionId);
    storable('digest', deployment.digest);
    storable('xml', deployment.xml);
    return this.#transaction('putDeployment', async (client) => {
      await client.query(this.#sql.lockDeployments);
      const existing = await client.query<DeploymentRow>(this.#sql.selectDeployment, [deployment.digest]);
      if (existing.rows[0] !== undefined) return toDeployment(existing.rows[0]);
      const next = await client.query<{ version: number }>(this.#sql.selectNextVersion, [deployment.definitionId]);
      const version = Number(next.rows[0]!.version);
      await client.query(this.#sql.insertDeployment, [
        deployment.definitionId,
        deployment.digest,
        version,
        deployment.xml,
        deployment.deployedAt,
      ]);
      return {
        definitionId: deployment.definitionId,
        digest: deployment.digest,
        xml: deployment.xml,
        deployedAt: deployment.deployedAt,
        version,
      };
    });
  }

  async getDeployment(digest: string): Promise<Deployment | undefined> {
    this.#assertOpen('getDeployment');
    if (!isStorable(digest)) return undefined;
    const { rows } = await this.#call('getDeployment', () =>
      this.#pool.query<DeploymentRow>(this.#sql.selectDeployment, [digest]),
    );
    return rows[0] === undefined ? undefined : toDeployment(rows[0]);
  }

  async deployments(definitionId?: string): Promise<Deployment[]> {
    this.#assertOpen('deployments');
    if (!isStorable(definitionId)) return [];
    const { rows } = await this.#call('deployments', () =>
      definitionId === undefined
        ? this.#pool.query<DeploymentRow>(this.#sql.selectDeployments, [])
        : this.#pool.query<DeploymentRow>(this.#sql.selectDeploymentsOf, [definitionId]),
    );
    return rows.map(toDeployment);
  }

  /** Refuse further calls; end the pool if the repository opened it. Closing again is a no-op. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#owned) await this.#call('close', () => this.#pool.end(), true);
  }

  async #putIn(client: PgClientLike, checkpoint: PutCheckpoint): Promise<void> {
    const { instanceId, seq, parentSeq, meta } = checkpoint;
    const instanceValues = [
      instanceId,
      seq,
      checkpoint.definitionDigest,
      meta.status,
      meta.processId,
      meta.definitionId,
      meta.businessKey,
      meta.parentId,
      meta.callNodeId,
      meta.dueAt,
    ];
    // Twice at most: a concurrent put may create the instance between our lock attempt and our insert.
    for (let attempt = 0; ; attempt++) {
      const locked = await this.#lockAndFence(client, instanceId, checkpoint.fence);
      const latest = locked === undefined ? null : Number(locked.latest_seq);
      const stored =
        latest === null
          ? undefined
          : (await client.query<{ document: Uint8Array }>(this.#sql.selectDocument, [instanceId, seq])).rows[0]
              ?.document;
      if (decidePut(checkpoint, stored, latest) === 'replay') return;
      if (latest === null) {
        const created = await client.query(this.#sql.createInstance, instanceValues);
        if (created.rowCount === 0) {
          if (attempt > 0) throw new Error(`instance ${instanceId} exists but its row could not be locked`);
          continue;
        }
      } else {
        await client.query(this.#sql.updateInstance, instanceValues);
        await client.query(this.#sql.deleteSubscriptions, [instanceId]);
      }
      if (meta.subscriptions.length > 0) {
        await client.query(this.#sql.insertSubscriptions, [
          instanceId,
          meta.subscriptions.map(({ name }) => name),
          meta.subscriptions.map(({ key }) => key),
        ]);
      }
      await client.query(this.#sql.insertCheckpoint, [
        instanceId,
        seq,
        parentSeq,
        checkpoint.schema,
        checkpoint.definitionDigest,
        checkpoint.digest,
        checkpoint.bytes,
      ]);
      return;
    }
  }

  /**
   * Lock the instance's row (waiting for its other writers) and apply the fence rule to the lease held on it;
   * the row, undefined when the instance does not exist (so no lease is held).
   */
  async #lockAndFence(
    client: PgClientLike,
    instanceId: string,
    fence: Fence | undefined,
  ): Promise<LockedInstanceRow | undefined> {
    const { rows } = await client.query<LockedInstanceRow>(this.#sql.lockInstance, [instanceId]);
    checkFence(instanceId, fence, heldLease(rows[0]));
    return rows[0];
  }

  /** Run `work` in one READ COMMITTED transaction on one connection; roll back if it throws. */
  #transaction<T>(operation: string, work: (client: PgClientLike) => Promise<T>): Promise<T> {
    return this.#onConnection(operation, 'BEGIN', work);
  }

  /** Run reads in one REPEATABLE READ, READ ONLY transaction, so a checkpoint and its writes agree. */
  #snapshot<T>(operation: string, work: (client: PgClientLike) => Promise<T>): Promise<T> {
    return this.#onConnection(operation, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', work);
  }

  async #onConnection<T>(operation: string, begin: string, work: (client: PgClientLike) => Promise<T>): Promise<T> {
    return this.#call(operation, async () => {
      const client = await this.#pool.connect();
      let broken: Error | undefined;
      try {
        await client.query(begin);
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollback: unknown) => {
          // A connection that cannot roll back is not given to anyone else.
          broken = rollback instanceof Error ? rollback : new Error(String(rollback));
        });
        throw error;
      } finally {
        client.release(broken);
      }
    });
  }

  #assertOpen(operation: string): void {
    if (this.#closed) {
      throw new CheckpointError(
        CheckpointErrorCode.Store,
        `${operation} on the PostgreSQL repository (schema "${this.schema}" in ${this.#where}) after it was closed; open a new one`,
      );
    }
  }

  /** Run driver work, refusing it once closed and classifying driver failures as store errors. */
  async #call<T>(operation: string, work: () => Promise<T>, closing = false): Promise<T> {
    if (!closing) this.#assertOpen(operation);
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

/** Matches a UTF-16 surrogate that is not part of a pair: the `u` flag reads a valid pair as one code point. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Whether PostgreSQL text keeps this value as given: no U+0000 (refused) and no lone surrogate (mangled). */
function isStorable(value: string | null | undefined): boolean {
  return value === null || value === undefined || (!value.includes('\u0000') && !LONE_SURROGATE.test(value));
}

/**
 * Refuse text that PostgreSQL cannot keep: `text` rejects U+0000, and a lone surrogate would reach the
 * server as U+FFFD (the driver encodes UTF-8), so two distinct ids could become one. Refused before the
 * write rather than failing in the server or being stored altered.
 */
function storable(path: string, value: string | null): void {
  if (value?.includes('\u0000')) {
    throw new UnencodableValueError(path, 'it contains U+0000, which PostgreSQL text cannot hold');
  }
  if (!isStorable(value)) {
    throw new UnencodableValueError(path, 'it contains a lone UTF-16 surrogate, which PostgreSQL text cannot hold');
  }
}

/**
 * SQLSTATE classes and codes worth retrying: connection failures (08), serialization failures and
 * deadlocks (40001, 40P01), too many connections (53300), a server shutting down (57P01–57P03), a lock
 * not available (55P03); and a socket that closed or refused.
 */
function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return (
    /^08/.test(code) ||
    ['40001', '40P01', '53300', '57P01', '57P02', '57P03', '55P03'].includes(code) ||
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(code)
  );
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The connection string without its password, for messages. */
function redact(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return 'the given connection string';
  }
}

/** The lease held on an instance row, undefined when none is (or there is no row). */
function heldLease(row: LockedInstanceRow | undefined): HeldLease | undefined {
  if (row === undefined || row.lease_owner === null || row.lease_token === null || row.lease_expires_at === null) {
    return undefined;
  }
  return { owner: row.lease_owner, token: Number(row.lease_token), expiresAt: Number(row.lease_expires_at) };
}

/** A `LIMIT` for a page size as the memory store slices: negative is none, a fraction rounds down, Infinity is all. */
function pageSize(limit: number): number | null {
  if (Number.isNaN(limit)) return 0;
  return Number.isFinite(limit) ? Math.max(0, Math.trunc(limit)) : null;
}
