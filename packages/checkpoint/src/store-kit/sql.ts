/**
 * What the SQL stores (`@thresher/store-sqlite`, `@thresher/store-postgres`) share, so it is written once:
 * the shapes of the rows their common tables return and how those rows become contract values, the refusal
 * of a schema written by a newer build, and how a refusal of an option shows its value. What text they may
 * bind is the contract's rule, not theirs (`checkText`, `isStorableText` of the main entry), the same for
 * every store.
 *
 * Where the backends differ the difference stays explicit: a row type's `TInt8` says how the driver returns
 * a 64-bit integer column.
 */
import { CheckpointError, CheckpointErrorCode, StoreUpgradedError } from '../errors.js';
import type {
  BufferedMessage,
  Deployment,
  DeploymentInput,
  DueTimer,
  InstanceSummary,
  JobLock,
  LogEntry,
  MessageSubscription,
  StoredCheckpoint,
} from '../repository-types.js';
import type { InstanceStatus } from '../types.js';

// ---------------------------------------------------------------------------------------------------------
// Rows of the common tables
// ---------------------------------------------------------------------------------------------------------

/**
 * A 64-bit integer column as a driver may return it: better-sqlite3 returns every `INTEGER` as a number;
 * `pg` returns `BIGINT` as a string (it may not fit a double) and PGlite as a number. Row types take the
 * one their driver returns as `TInt8`; the mappers below apply `Number`.
 */
export type Int8Column = number | string | bigint;

/** A `checkpoints` row; `document` is the canonical bytes as stored (drivers return a Buffer). */
export interface CheckpointRow<TInt8 extends Int8Column = number> {
  instance_id: string;
  seq: TInt8;
  parent_seq: TInt8 | null;
  schema: number;
  definition_digest: string;
  digest: string;
  document: Uint8Array;
  /** The log entry its put filed, where a statement joins it (NULL when it filed none). */
  log?: Uint8Array | null;
}

/** The columns of a `checkpoints` row, in the order the stores' statements list them. */
const CHECKPOINT_COLUMN_NAMES = [
  'instance_id',
  'seq',
  'parent_seq',
  'schema',
  'definition_digest',
  'digest',
  'document',
] as const satisfies readonly (keyof CheckpointRow)[];

/** {@link CHECKPOINT_COLUMN_NAMES} as a statement lists them. */
export const CHECKPOINT_COLUMNS = CHECKPOINT_COLUMN_NAMES.join(', ');

/** {@link CHECKPOINT_COLUMNS}, each of the table aliased `alias` (`c.instance_id, c.seq, …`). */
export function checkpointColumnsOf(alias: string): string {
  return CHECKPOINT_COLUMN_NAMES.map((column) => `${alias}.${column}`).join(', ');
}

/** A `writes` row (a journal entry) as read with its checkpoint. */
export interface WriteRow<TInt8 extends Int8Column = number> {
  seq: TInt8;
  task_id: string;
  idx: TInt8;
  value: Uint8Array;
}

/**
 * A checkpoint row joined with one of its journal entries (NULL entry columns when it has none): how `get`
 * reads a checkpoint and its journal in one statement, a row per entry in filing order.
 */
export type CheckpointWithWriteRow<TInt8 extends Int8Column = number> = CheckpointRow<TInt8> & {
  task_id: string | null;
  idx: TInt8 | null;
  value: Uint8Array | null;
};

/** An `instances` row: what `put` indexed for discovery. */
export interface InstanceRow<TInt8 extends Int8Column = number> {
  instance_id: string;
  latest_seq: TInt8;
  definition_digest: string;
  status: string;
  process_id: string;
  definition_id: string;
  business_key: string | null;
  parent_id: string | null;
  call_node_id: string | null;
  due_at: number | null;
  /** Null only on SQLite, whose added column cannot be NOT NULL; every put and migration writes it. */
  root_id: string | null;
  ended_at: number | null;
  /** Null only on SQLite, whose added column cannot be NOT NULL; every insert and the migration write it. */
  serial: TInt8 | null;
}

/** A `log` row as `history` reads it; the position as the store's statement spells it. */
export interface LogRow<TInt8 extends Int8Column = number> {
  instance_id: string;
  seq: TInt8;
  entry: Uint8Array;
}

/** A `messages` row; `variables` is the canonical bytes as stored. */
export interface MessageRow {
  id: string;
  name: string;
  correlation_key: string | null;
  variables: Uint8Array;
  published_at: number;
  expires_at: number;
}

/** A locked row of the job queue: its job and its lock. */
export interface JobLockRow<TInt8 extends Int8Column = number> {
  instance_id: string;
  job_id: string;
  type: string;
  attempt: TInt8;
  worker: string;
  deadline: TInt8;
}

/** A `deployments` row. */
export interface DeploymentRow<TInt8 extends Int8Column = number> {
  definition_id: string;
  digest: string;
  version: number;
  xml: string;
  deployed_at: TInt8;
}

/** A due timer as read from `instances`: the instance and its `due_at`. */
export interface DueTimerRow {
  instance_id: string;
  due_at: number;
}

// ---------------------------------------------------------------------------------------------------------
// Rows to contract values
// ---------------------------------------------------------------------------------------------------------

/**
 * A plain `Uint8Array` of bytes a driver returned, never the driver's memory: a Buffer that is a view into a
 * larger one (a pooled or row buffer) is copied; one that owns its whole memory (better-sqlite3 makes one a
 * value) is viewed as it is, without a copy.
 */
export function toBytes(bytes: Uint8Array): Uint8Array {
  const { buffer, byteOffset, byteLength } = bytes;
  if (byteOffset === 0 && byteLength === buffer.byteLength && buffer instanceof ArrayBuffer) {
    return new Uint8Array(buffer);
  }
  return new Uint8Array(bytes);
}

/** A stored checkpoint from its row and its journal entries' rows, in filing order. */
export function toStoredCheckpoint<TInt8 extends Int8Column>(
  row: CheckpointRow<TInt8>,
  writes: readonly WriteRow<TInt8>[],
): StoredCheckpoint {
  const stored: StoredCheckpoint = {
    instanceId: row.instance_id,
    seq: Number(row.seq),
    parentSeq: row.parent_seq === null ? null : Number(row.parent_seq),
    schema: Number(row.schema),
    definitionDigest: row.definition_digest,
    digest: row.digest,
    bytes: toBytes(row.document),
    writes: writes.map((write) => ({ taskId: write.task_id, index: Number(write.idx), value: toBytes(write.value) })),
  };
  if (row.log !== undefined && row.log !== null) stored.log = toBytes(row.log);
  return stored;
}

/** A log entry from its row and its position as the store writes it. */
export function toLogEntry<TInt8 extends Int8Column>(row: LogRow<TInt8>, position: string): LogEntry {
  return { instanceId: row.instance_id, seq: Number(row.seq), position, bytes: toBytes(row.entry) };
}

/** The stored checkpoint that joined rows hold ({@link CheckpointWithWriteRow}); undefined when there are none. */
export function toStoredCheckpointFromJoined<TInt8 extends Int8Column>(
  rows: readonly CheckpointWithWriteRow<TInt8>[],
): StoredCheckpoint | undefined {
  const row = rows[0];
  if (row === undefined) return undefined;
  return toStoredCheckpoint(row, row.task_id === null ? [] : (rows as readonly WriteRow<TInt8>[]));
}

/**
 * The stored checkpoints that joined rows of several instances hold ({@link CheckpointWithWriteRow}, each
 * instance's rows together, in filing order): one per instance, in the order of the rows.
 */
export function toStoredCheckpointsFromJoined<TInt8 extends Int8Column>(
  rows: readonly CheckpointWithWriteRow<TInt8>[],
): StoredCheckpoint[] {
  const stored: StoredCheckpoint[] = [];
  let from = 0;
  for (let to = 1; to <= rows.length; to++) {
    if (to < rows.length && rows[to]!.instance_id === rows[from]!.instance_id) continue;
    stored.push(toStoredCheckpointFromJoined(rows.slice(from, to))!);
    from = to;
  }
  return stored;
}

/**
 * Stored checkpoints from a page of rows and the journal entries of that page's seqs (in any seq order,
 * filing order within a seq): each checkpoint gets the entries of its seq.
 */
export function toStoredCheckpoints<TInt8 extends Int8Column>(
  rows: readonly CheckpointRow<TInt8>[],
  writes: readonly WriteRow<TInt8>[],
): StoredCheckpoint[] {
  const bySeq = new Map<number, WriteRow<TInt8>[]>();
  for (const write of writes) {
    const seq = Number(write.seq);
    const group = bySeq.get(seq);
    if (group === undefined) bySeq.set(seq, [write]);
    else group.push(write);
  }
  return rows.map((row) => toStoredCheckpoint(row, bySeq.get(Number(row.seq)) ?? []));
}

/** An instance summary from its row and its subscriptions in the order they were put. */
export function toInstanceSummary<TInt8 extends Int8Column>(
  row: InstanceRow<TInt8>,
  subscriptions: MessageSubscription[],
): InstanceSummary {
  return {
    instanceId: row.instance_id,
    serial: Number(row.serial),
    latestSeq: Number(row.latest_seq),
    definitionDigest: row.definition_digest,
    status: row.status as InstanceStatus,
    processId: row.process_id,
    definitionId: row.definition_id,
    businessKey: row.business_key,
    parentId: row.parent_id,
    callNodeId: row.call_node_id,
    dueAt: row.due_at === null ? null : Number(row.due_at),
    subscriptions,
    endedAt: row.ended_at === null || row.ended_at === undefined ? null : Number(row.ended_at),
    rootId: row.root_id ?? row.instance_id,
  };
}

/** A due timer from its row. */
export function toDueTimer(row: DueTimerRow): DueTimer {
  return { instanceId: row.instance_id, dueAt: Number(row.due_at) };
}

/** A buffered message from its row. */
export function toBufferedMessage(row: MessageRow): BufferedMessage {
  return {
    id: row.id,
    name: row.name,
    correlationKey: row.correlation_key,
    variables: toBytes(row.variables),
    publishedAt: Number(row.published_at),
    expiresAt: Number(row.expires_at),
  };
}

/** A job's lock from its row. */
export function toJobLock<TInt8 extends Int8Column>(row: JobLockRow<TInt8>): JobLock {
  return {
    instanceId: row.instance_id,
    jobId: row.job_id,
    type: row.type,
    attempt: Number(row.attempt),
    worker: row.worker,
    deadline: Number(row.deadline),
  };
}

/** A deployment from its row. */
export function toDeployment<TInt8 extends Int8Column>(row: DeploymentRow<TInt8>): Deployment {
  return {
    definitionId: row.definition_id,
    digest: row.digest,
    xml: row.xml,
    deployedAt: Number(row.deployed_at),
    version: Number(row.version),
  };
}

/** The deployment `putDeployment` stores for a new digest: the input, with the version it was given. */
export function newDeployment(input: DeploymentInput, version: number): Deployment {
  return {
    definitionId: input.definitionId,
    digest: input.digest,
    xml: input.xml,
    deployedAt: input.deployedAt,
    version,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Schema versions
// ---------------------------------------------------------------------------------------------------------

/**
 * One step of a SQL store's schema. A store keeps its steps as an append-only list (never edit or reorder a
 * shipped entry, only add one at the end); a step's position in it (1-based) is the schema version it
 * produces.
 */
export interface SchemaMigration {
  /** What the step changes, for people reading a database's recorded version against the list. */
  description: string;
  /** The statements, in the store's dialect (a store may document placeholders it fills in). */
  sql: string;
}

/**
 * Refuse a database whose schema a newer build wrote: its tables may mean something this build cannot
 * honour, and writing to them could corrupt what the newer build relies on.
 *
 * @param where the database as the message names it, e.g. `the SQLite database /srv/thresher.db`
 * @param store the package of this build, e.g. `@thresher/store-sqlite`
 * @param supported the newest schema version this build knows: the length of its migration list
 * @throws CheckpointError with code `THRESHER_FUTURE_SCHEMA` when `version` is above `supported`
 */
export function assertKnownStoreSchema(where: string, version: number, store: string, supported: number): void {
  if (version > supported) {
    throw new CheckpointError(
      CheckpointErrorCode.FutureSchema,
      `${where} has schema version ${version}, but this build of ${store} supports at most ${supported}; ` +
        'upgrade Thresher to open it',
    );
  }
}

/**
 * Refuse a write once a newer build migrated the store this process opened: checked inside every write
 * transaction, against the version the store records, so a process that opened the store before the
 * migration stops writing instead of writing rows the newer schema may not expect.
 *
 * @param where the store as the message names it, e.g. `the SQLite database /srv/thresher.db`
 * @param version the schema version the store records, read inside the write's transaction
 * @param supported the newest schema version this build knows: the length of its migration list
 * @throws StoreUpgradedError (code `THRESHER_STORE_UPGRADED`) when `version` is above `supported`
 */
export function assertStoreNotUpgraded(where: string, version: number, supported: number): void {
  if (version > supported) throw new StoreUpgradedError(where, version, supported);
}

/**
 * A store option's value as its refusal names it: quoted text, a primitive as it prints (a bigint or a symbol
 * too, which `JSON.stringify` would throw on), or only the kind of anything else.
 */
export function shownOption(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object';
  return typeof value === 'function' ? 'a function' : String(value);
}
