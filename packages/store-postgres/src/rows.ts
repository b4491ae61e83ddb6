/**
 * Rows and parameters of the PostgreSQL repository: what its statements return, how rows become contract
 * values and contract values become bound parameters, and which text it can bind.
 *
 * `BIGINT` columns come back from `pg` as strings (from PGlite as numbers), so the shared row types of
 * `@thresher/checkpoint/store-kit` are used with {@link Int8} for them, and the mappers apply `Number`; the
 * rows only this store has are declared here. Statements bind `$n` parameters from arrays, in the order given here.
 */
import type {
  BufferedMessage,
  DeploymentInput,
  InstanceQuery,
  InstanceSummary,
  Lease,
  MessageSubscription,
  PendingWrite,
  PutCheckpoint,
  RewriteCheckpoint,
} from '@thresher/checkpoint';
import { type HeldLease, type InstanceRow, type Int8Column, toInstanceSummary } from '@thresher/checkpoint/store-kit';

/** A `BIGINT` as a driver returns it: `pg` as a string, PGlite as a number. */
export type Int8 = Int8Column;

/** An `instances` row with its subscriptions (a JSON array of `[name, key]`, in the order put): a summary. */
export interface SummaryRow extends InstanceRow<Int8> {
  subscriptions: [string, string | null][];
}

/** The instance row as a writer locks it: the latest seq and the held lease (all null when none is held). */
export interface LockedInstanceRow {
  latest_seq: Int8;
  /** Read with the lock by `put` (other readers of the lease leave it out). */
  parent_id?: string | null;
  lease_owner: string | null;
  lease_token: Int8 | null;
  lease_expires_at: number | null;
}

/** A lease as `claim` returns it. */
export interface ClaimedRow {
  instance_id: string;
  lease_token: Int8;
  lease_expires_at: number;
  /** `claim`'s only: who held the lease it took over (null when nobody did). */
  taken_from?: string | null;
}

/** A `readers` row: its position as (tx, serial), NULLs while it has read nothing. */
export interface ReaderRow {
  name: string;
  tx: string | null;
  position: Int8 | null;
  cursor: string | null;
}

/** An instance's latest seq, as `selectLatestSeq` reads it. */
export interface LatestSeqRow {
  latest_seq: Int8;
}

/** An instance id, as the subscriber queries return them. */
export interface InstanceIdRow {
  instance_id: string;
}

/** The lease held on an instance row, undefined when none is (or there is no row). */
export function heldLease(row: LockedInstanceRow | undefined): HeldLease | undefined {
  if (row === undefined || row.lease_owner === null || row.lease_token === null || row.lease_expires_at === null) {
    return undefined;
  }
  return { owner: row.lease_owner, token: Number(row.lease_token), expiresAt: Number(row.lease_expires_at) };
}

/** The lease `claim` handed to `owner` on a row. */
export function toLease(row: ClaimedRow, owner: string): Lease {
  return {
    instanceId: row.instance_id,
    owner,
    token: Number(row.lease_token),
    expiresAt: Number(row.lease_expires_at),
    ...(row.taken_from == null ? {} : { takenFrom: row.taken_from }),
  };
}

export function toSummary(row: SummaryRow): InstanceSummary {
  return toInstanceSummary(
    row,
    row.subscriptions.map(([name, key]): MessageSubscription => ({ name, key })),
  );
}

/** `createInstance`'s and `updateInstance`'s parameters: what `put` indexes about the instance. */
export function instanceParams(checkpoint: PutCheckpoint): unknown[] {
  const { meta } = checkpoint;
  return [
    checkpoint.instanceId,
    checkpoint.seq,
    checkpoint.definitionDigest,
    meta.status,
    meta.processId,
    meta.definitionId,
    meta.businessKey,
    meta.parentId,
    meta.callNodeId,
    meta.dueAt,
    meta.endedAt ?? null,
  ];
}

/** `insertSubscriptions`'s parameters: the instance, then the names and the keys, in order. */
export function subscriptionParams(checkpoint: PutCheckpoint): unknown[] {
  const { subscriptions } = checkpoint.meta;
  return [checkpoint.instanceId, subscriptions.map(({ name }) => name), subscriptions.map(({ key }) => key)];
}

/** `insertCheckpoint`'s parameters. */
export function checkpointParams(checkpoint: PutCheckpoint): unknown[] {
  return [
    checkpoint.instanceId,
    checkpoint.seq,
    checkpoint.parentSeq,
    checkpoint.schema,
    checkpoint.definitionDigest,
    checkpoint.digest,
    checkpoint.bytes,
  ];
}

/** What `put_checkpoint` answers (put-function-v5.ts; every later version answers alike). */
export interface PutFunctionRow {
  outcome: 'stored' | 'upgraded' | 'fallback';
  schema_version: number | null;
  claimed_token: Int8 | null;
  claimed_expires_at: number | null;
}

/** What a one-statement put binds of the lease: the fence (owner, token), release, the claim (owner, expiry). */
export function putLeaseParams({ fence, claim, release }: PutCheckpoint): unknown[] {
  return [
    fence?.owner ?? null,
    fence?.token ?? null,
    release === true,
    claim?.owner ?? null,
    claim === undefined ? null : claim.now + claim.ttlMs,
  ];
}

/**
 * `putCheckpoint`'s parameters (the function's): the checkpoint row, the indexed meta and the subscriptions
 * bound as the statements of the full path bind them, then the fence, release, the claim (its expiry as
 * `claim` computes it), the migration lock key and this build's schema version; and, for version 7's
 * signature (a put carrying them), the deployments its instance was chosen among.
 */
export function putFunctionParams(checkpoint: PutCheckpoint, lockKey: string, buildVersion: number): unknown[] {
  const { deploymentsSeen } = checkpoint;
  return [
    ...checkpointParams(checkpoint),
    ...instanceParams(checkpoint).slice(3),
    ...subscriptionParams(checkpoint).slice(1),
    ...putLeaseParams(checkpoint),
    checkpoint.log ?? null,
    checkpoint.keepLast ?? null,
    lockKey,
    buildVersion,
    ...(deploymentsSeen === undefined ? [] : [deploymentsSeen]),
  ];
}

/** Whether a put needs version 7's `put_checkpoint`: it carries the deployments its instance was chosen among. */
export function carriesDeploymentsSeen(checkpoint: PutCheckpoint): boolean {
  return checkpoint.deploymentsSeen !== undefined;
}

/** `rewriteCheckpoint`'s parameters: only what a schema migration changes. */
export function rewriteParams(checkpoint: RewriteCheckpoint): unknown[] {
  return [checkpoint.instanceId, checkpoint.seq, checkpoint.schema, checkpoint.digest, checkpoint.bytes];
}

/** `insertWrites`' parameters: the checkpoint, the highest ord filed so far (-1 for none), then each entry. */
export function writesParams(instanceId: string, seq: number, ord: number, writes: readonly PendingWrite[]): unknown[] {
  const values: unknown[] = [instanceId, seq, ord];
  for (const entry of writes) values.push(entry.taskId, entry.index, entry.value);
  return values;
}

/** `insertMessage`'s parameters. */
export function messageParams(message: BufferedMessage): unknown[] {
  return [message.id, message.name, message.correlationKey, message.variables, message.publishedAt, message.expiresAt];
}

/** `insertDeployment`'s parameters. */
export function deploymentParams(input: DeploymentInput, version: number): unknown[] {
  return [input.definitionId, input.digest, version, input.xml, input.deployedAt];
}

/** An `instances` query as the filters of its statement: absent ones stay undefined, and bind nothing. */
export function instanceFilter(query: InstanceQuery): InstanceFilter {
  return {
    serial: query.serial,
    ids: query.ids,
    roots: query.roots === true,
    children: query.children === true,
    parentId: query.parentId,
    status: query.status,
    definition: query.definition,
    processId: query.processId,
    businessKey: query.businessKey,
    after: query.after,
    limit: query.limit,
    rootId: query.rootId,
    before: query.before,
    desc: query.order === 'desc',
    idsOnly: false,
  };
}

/** A `LIMIT` for a page size as the memory store slices: negative is none, a fraction rounds down, Infinity is all. */
export function pageSize(limit: number): number | null {
  if (Number.isNaN(limit)) return 0;
  return Number.isFinite(limit) ? Math.max(0, Math.trunc(limit)) : null;
}

/** The filters of an `instances` query, as values; absent ones are undefined. */
export interface InstanceFilter {
  serial: number | undefined;
  ids: readonly string[] | undefined;
  roots: boolean;
  children: boolean;
  parentId: string | undefined;
  status: string | undefined;
  definition: string | undefined;
  processId: string | undefined;
  businessKey: string | undefined;
  after: string | undefined;
  limit: number | undefined;
  rootId: string | undefined;
  before: string | undefined;
  /** Ids descending. */
  desc: boolean;
  /** Only the ids are read (`instanceIds`): from the index alone where one serves the filter. */
  idsOnly: boolean;
}
