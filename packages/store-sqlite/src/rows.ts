/**
 * Rows and parameters of the SQLite repository: what its statements return, how rows become contract values
 * and contract values become bound parameters, and which text it can bind.
 *
 * better-sqlite3 returns every `INTEGER` as a number, so the shared row types of
 * `@thresher/checkpoint/store-kit` (`CheckpointRow`, `WriteRow`, `InstanceRow`, `MessageRow`, `DeploymentRow`)
 * are used with their default integer type; the rows only this store has are declared here. Statements with `@name` parameters bind
 * from objects keyed by column name.
 */
import type {
  BufferedMessage,
  DeploymentInput,
  InstanceQuery,
  InstanceSummary,
  Lease,
  MessageSubscription,
  PutCheckpoint,
  RewriteCheckpoint,
} from '@thresher/checkpoint';
import { type HeldLease, type InstanceRow, toInstanceSummary } from '@thresher/checkpoint/store-kit';
import type { InstanceFilterShape } from './statements.js';

/** The lease columns of an instance row: all NULL while no lease is held. */
export interface LeaseRow {
  lease_owner: string | null;
  lease_token: number | null;
  lease_expires_at: number | null;
}

/** What `put` reads of an existing instance row (`selectPutState`). */
export type PutStateRow = InstanceRow & LeaseRow;

/** A `subscriptions` row as read for summaries. */
export interface SubscriptionRow {
  instance_id: string;
  name: string;
  key: string | null;
}

/** A `readers` row. */
export interface ReaderRow {
  name: string;
  position: number | null;
  cursor: string | null;
}

/** An instance's latest seq, as `selectLatestSeq` reads it. */
export interface LatestSeqRow {
  latest_seq: number;
}

/** An instance id, as the claim and subscriber queries return them. */
export interface InstanceIdRow {
  instance_id: string;
}

/** A claimable instance: its id and who holds its lease now (null when nobody does). */
export interface ClaimableRow extends InstanceIdRow {
  lease_owner: string | null;
}

/** The held lease of an instance row; undefined when there is no row or no lease is held. */
export function heldLease(row: LeaseRow | undefined): HeldLease | undefined {
  if (row?.lease_owner == null) return undefined;
  return { owner: row.lease_owner, token: row.lease_token!, expiresAt: row.lease_expires_at! };
}

/** Summaries of a page of instance rows, given the page's subscription rows (in `ord` order per instance). */
export function toSummaries(rows: readonly InstanceRow[], found: readonly SubscriptionRow[]): InstanceSummary[] {
  const subscriptions = new Map<string, MessageSubscription[]>(rows.map((row) => [row.instance_id, []]));
  for (const { instance_id, name, key } of found) subscriptions.get(instance_id)?.push({ name, key });
  return rows.map((row) => toInstanceSummary(row, subscriptions.get(row.instance_id)!));
}

/**
 * `insertInstance`'s (and a put's update's) parameters: what `put` indexes about the instance, and the lease a
 * new instance is stored with (none: NULLs).
 */
export function instanceParams(checkpoint: PutCheckpoint, lease?: Lease): Record<string, unknown> {
  const { meta } = checkpoint;
  return {
    instance_id: checkpoint.instanceId,
    latest_seq: checkpoint.seq,
    definition_digest: checkpoint.definitionDigest,
    status: meta.status,
    process_id: meta.processId,
    definition_id: meta.definitionId,
    business_key: meta.businessKey,
    parent_id: meta.parentId,
    call_node_id: meta.callNodeId,
    due_at: meta.dueAt,
    ended_at: meta.endedAt ?? null,
    lease_owner: lease?.owner ?? null,
    lease_token: lease?.token ?? null,
    lease_expires_at: lease?.expiresAt ?? null,
  };
}

/** `insertStep`'s parameters: the checkpoint and the log entry its put files (none: NULL). */
export function checkpointParams(checkpoint: PutCheckpoint): Record<string, unknown> {
  return {
    instance_id: checkpoint.instanceId,
    seq: checkpoint.seq,
    parent_seq: checkpoint.parentSeq,
    schema: checkpoint.schema,
    definition_digest: checkpoint.definitionDigest,
    digest: checkpoint.digest,
    document: checkpoint.bytes,
    entry: checkpoint.log ?? null,
  };
}

/** `rewriteCheckpoint`'s parameters: only what a schema migration changes. */
export function rewriteParams(checkpoint: RewriteCheckpoint): Record<string, unknown> {
  return {
    instance_id: checkpoint.instanceId,
    seq: checkpoint.seq,
    schema: checkpoint.schema,
    digest: checkpoint.digest,
    document: checkpoint.bytes,
  };
}

/** `setLease`'s parameters. */
export function leaseParams(lease: Lease): Record<string, unknown> {
  return { instance_id: lease.instanceId, owner: lease.owner, token: lease.token, expires_at: lease.expiresAt };
}

/** `insertMessage`'s parameters. */
export function messageParams(message: BufferedMessage): Record<string, unknown> {
  return {
    id: message.id,
    name: message.name,
    correlation_key: message.correlationKey,
    variables: message.variables,
    published_at: message.publishedAt,
    expires_at: message.expiresAt,
  };
}

/** `insertDeployment`'s parameters. */
export function deploymentParams(input: DeploymentInput, version: number): Record<string, unknown> {
  return {
    definition_id: input.definitionId,
    digest: input.digest,
    version,
    xml: input.xml,
    deployed_at: input.deployedAt,
  };
}

/**
 * An `instances` query as the shape of its statement (which filters are present) and the parameters it
 * binds: only the present filters, as a named parameter the statement uses but the object lacks is an error.
 */
export function instanceFilter(query: InstanceQuery): { shape: InstanceFilterShape; params: Record<string, unknown> } {
  const shape: InstanceFilterShape = {
    serial: query.serial !== undefined,
    ids: query.ids !== undefined,
    roots: query.roots === true,
    children: query.children === true,
    parentId: query.parentId !== undefined,
    status: query.status !== undefined,
    liveStatus: query.status !== undefined && query.status !== 'completed',
    definition: query.definition !== undefined,
    processId: query.processId !== undefined,
    businessKey: query.businessKey !== undefined,
    after: query.after !== undefined,
    limit: query.limit !== undefined,
    rootId: query.rootId !== undefined,
    before: query.before !== undefined,
    desc: query.order === 'desc',
    idsOnly: false,
  };
  const params: Record<string, unknown> = {};
  if (shape.serial) params.serial = query.serial;
  if (shape.ids) params.ids = JSON.stringify(query.ids);
  if (shape.parentId) params.parentId = query.parentId;
  if (shape.rootId) params.rootId = query.rootId;
  if (shape.status) params.status = query.status;
  if (shape.definition) params.definition = query.definition;
  if (shape.processId) params.processId = query.processId;
  if (shape.businessKey) params.businessKey = query.businessKey;
  if (shape.after) params.after = query.after;
  if (shape.before) params.before = query.before;
  if (shape.limit) params.limit = query.limit;
  return { shape, params };
}
